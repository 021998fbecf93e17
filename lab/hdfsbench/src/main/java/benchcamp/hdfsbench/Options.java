package benchcamp.hdfsbench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's own options (after Hadoop's generic options are taken out): {@code --name value}
 * or {@code --name=value}. Sizes are bytes with an optional binary suffix: {@code 512}, {@code 64k},
 * {@code 1m}, {@code 16m}, {@code 1g}, {@code 1t} (k = 2^10, m = 2^20, g = 2^30, t = 2^40; case
 * ignored, an optional trailing {@code b} allowed: {@code 1mb}). Bad input throws {@link
 * IllegalArgumentException} with a message naming the option.
 */
public final class Options {
  public static final List<String> BENCHES = List.of("swl", "srl", "rrl", "swt", "srt");

  public String bench;
  public List<Long> sizes = List.of(1L << 20);
  public long total = 64L << 20;
  public int clients = 4;
  public int buffer = 64 << 10;
  /** Block size of the written files; null: the file system's default (HDFS: dfs.blocksize). */
  public Long blockSize;
  /** Replication of the written files; null: the file system's default (HDFS: dfs.replication). */
  public Short replication;
  public int reads = 100;
  /** Bytes per positioned read of rrl; null: the buffer size. */
  public Integer readSize;
  public long seed = 42L;
  public String dir;

  private Options() {}

  /** Parses {@code bench [--option value ...]}. */
  public static Options parse(String[] args) {
    if (args.length == 0) {
      throw new IllegalArgumentException("missing benchmark name (one of " + String.join(", ", BENCHES) + ")");
    }
    Options o = new Options();
    o.bench = args[0];
    if (!BENCHES.contains(o.bench)) {
      throw new IllegalArgumentException(
          "unknown benchmark '" + o.bench + "' (one of " + String.join(", ", BENCHES) + ")");
    }
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new IllegalArgumentException("unexpected argument '" + arg + "'");
      }
      String name;
      String value;
      int eq = arg.indexOf('=');
      if (eq >= 0) {
        name = arg.substring(2, eq);
        value = arg.substring(eq + 1);
      } else {
        name = arg.substring(2);
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("--" + name + " needs a value");
        }
        value = args[++i];
      }
      switch (name) {
        case "sizes" -> o.sizes = parseSizes("sizes", value);
        case "total" -> o.total = parseSize("total", value);
        case "clients" -> o.clients = parseInt("clients", value, 1, 4096);
        case "buffer" -> o.buffer = toInt("buffer", parseSize("buffer", value));
        case "block-size" -> o.blockSize = parseSize("block-size", value);
        case "replication" -> o.replication = (short) parseInt("replication", value, 1, Short.MAX_VALUE);
        case "reads" -> o.reads = parseInt("reads", value, 1, Integer.MAX_VALUE);
        case "read-size" -> o.readSize = toInt("read-size", parseSize("read-size", value));
        case "seed" -> o.seed = parseLong("seed", value);
        case "dir" -> {
          if (value.isBlank()) {
            throw new IllegalArgumentException("--dir must not be empty");
          }
          o.dir = value;
        }
        default -> throw new IllegalArgumentException("unknown option --" + name);
      }
    }
    if (o.dir == null) {
      throw new IllegalArgumentException("--dir is required (a directory the tool creates and deletes)");
    }
    if (o.bench.equals("swt") || o.bench.equals("srt")) {
      if (o.total < o.clients) {
        throw new IllegalArgumentException(
            "--total (" + o.total + " bytes) is smaller than --clients (" + o.clients + ")");
      }
    }
    if (o.bench.equals("rrl")) {
      for (long size : o.sizes) {
        if (size < o.effectiveReadSize()) {
          throw new IllegalArgumentException(
              "--read-size (" + o.effectiveReadSize() + " bytes) exceeds the file size " + size);
        }
      }
    }
    return o;
  }

  public int effectiveReadSize() {
    return readSize != null ? readSize : buffer;
  }

  /** Bytes the benchmark writes (before replication). */
  public long bytesToWrite() {
    if (bench.equals("swt") || bench.equals("srt")) {
      return total;
    }
    long sum = 0;
    for (long s : sizes) {
      sum = Math.addExact(sum, s);
    }
    return sum;
  }

  /** {@link #bytesToWrite()}, or Long.MAX_VALUE when the sum overflows. */
  public long bytesToWriteSaturated() {
    try {
      return bytesToWrite();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  /** A comma-separated list of sizes, each positive. */
  public static List<Long> parseSizes(String option, String value) {
    List<Long> out = new ArrayList<>();
    for (String part : value.split(",", -1)) {
      out.add(parseSize(option, part.trim()));
    }
    return Collections.unmodifiableList(out);
  }

  /** A positive size in bytes: digits with an optional k/m/g/t suffix (binary), optional b. */
  public static long parseSize(String option, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.endsWith("b") && v.length() > 1) {
      v = v.substring(0, v.length() - 1);
    }
    int shift = 0;
    if (!v.isEmpty()) {
      switch (v.charAt(v.length() - 1)) {
        case 'k' -> shift = 10;
        case 'm' -> shift = 20;
        case 'g' -> shift = 30;
        case 't' -> shift = 40;
        case 'p' -> shift = 50;
        default -> shift = 0;
      }
    }
    String digits = shift == 0 ? v : v.substring(0, v.length() - 1);
    if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
      throw new IllegalArgumentException(
          "--" + option + ": '" + value + "' is not a size (bytes, or a number with k, m, g, t)");
    }
    long n;
    try {
      n = Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + option + ": '" + value + "' is too large");
    }
    if (n <= 0) {
      throw new IllegalArgumentException("--" + option + ": '" + value + "' must be positive");
    }
    if (n > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException("--" + option + ": '" + value + "' is too large");
    }
    return n << shift;
  }

  static int toInt(String option, long bytes) {
    if (bytes > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("--" + option + ": " + bytes + " bytes is too large (at most 2 GB)");
    }
    return (int) bytes;
  }

  static int parseInt(String option, String value, int min, int max) {
    long n = parseLong(option, value);
    if (n < min || n > max) {
      throw new IllegalArgumentException("--" + option + ": " + value + " is not in [" + min + ", " + max + "]");
    }
    return (int) n;
  }

  static long parseLong(String option, String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + option + ": '" + value + "' is not an integer");
    }
  }
}

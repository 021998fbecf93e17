package benchcamp.hivebench;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Generates Pavlo's HiveBench tables as '|'-delimited text: {@code rankings(pageURL, pageRank,
 * avgDuration)} and {@code uservisits(sourceIP, destURL, visitDate, adRevenue, userAgent,
 * countryCode, languageCode, searchWord, duration)}.
 *
 * <p>Page URLs are a function of the page index, so visits pick their destination by index
 * without holding the pages in memory (132 M pages / 1.1 G visits run in a small heap). Every
 * destURL is an existing page (skewed towards popular ones) so the join selects rows; visit
 * dates are uniform over 1995-2005 so the 1999 filter selects about a tenth; source IPs come
 * from a pool a tenth the size of the visits so the aggregation groups. The exact number of
 * distinct IPs and of 1999 visits is written to stats.json, so queries can be checked.
 *
 * <p>Rows are encoded straight into a byte buffer (no String formatting per row) and the
 * parts ({@code --files}, default one per core) are written in parallel: the generator has to
 * keep up with the disk, or data generation would dominate a campaign. Each row draws from its
 * own random stream keyed by (seed, table, row), so the data is the same whatever the number
 * of files or cores.
 */
public final class DataGen {
  static final byte DELIMITER = '|';
  static final LocalDate FIRST_DAY = LocalDate.of(1995, 1, 1);
  static final LocalDate LAST_DAY = LocalDate.of(2005, 12, 31);
  static final LocalDate JOIN_FROM = LocalDate.of(1999, 1, 1);
  static final LocalDate JOIN_TO = LocalDate.of(2000, 1, 1);
  static final int MAX_PAGE_RANK = 10_000;

  private static final byte[][] DOMAINS = bytes("alpha", "bravo", "cedar", "delta", "ember", "falcon",
      "garnet", "harbor", "indigo", "juniper", "kestrel", "lumen", "maple", "nectar", "onyx", "prairie",
      "quartz", "raven", "sierra", "tundra", "umber", "violet", "willow", "xenon", "yarrow", "zephyr");
  private static final byte[][] SECTIONS = bytes("news", "sports", "travel", "science", "music", "food",
      "finance", "health", "books", "movies", "games", "weather");
  private static final byte[][] USER_AGENTS = bytes(
      "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/115.0",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0",
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 13_5) AppleWebKit/605.1.15 Safari/605.1",
      "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)",
      "Opera/9.80 (Windows NT 6.1; U; en) Presto/2.10.289 Version/12.02",
      "Lynx/2.8.9rel.1 libwww-FM/2.14 SSL-MM/1.4.1",
      "Wget/1.21.3",
      "Googlebot/2.1 (+http://www.google.com/bot.html)");
  private static final byte[][] COUNTRIES = bytes("USA", "DEU", "FRA", "GBR", "ESP", "ITA", "JPN", "CHN",
      "IND", "BRA", "CAN", "AUS", "MEX", "NLD", "SWE", "ROU");
  private static final byte[][] LANGUAGES = bytes("en-US", "de-DE", "fr-FR", "en-GB", "es-ES", "it-IT",
      "ja-JP", "zh-CN", "hi-IN", "pt-BR", "en-CA", "en-AU", "es-MX", "nl-NL", "sv-SE", "ro-RO");
  private static final byte[][] WORDS = bytes("benchmark", "hadoop", "cluster", "weather", "recipe",
      "football", "election", "guitar", "vacation", "mortgage", "telescope", "marathon", "origami",
      "volcano", "jazz", "pixel", "glacier", "lantern");

  private static final byte[] HTML = bytes(".html")[0];

  private final long pages;
  private final long visits;
  private final long seed;
  private final int files;
  private final int days;
  private final byte[][] dateBytes;
  private final int joinFromDay;
  private final int joinToDay;

  DataGen(long pages, long visits, long seed, int files) {
    this.pages = pages;
    this.visits = visits;
    this.seed = seed;
    this.files = files;
    this.days = (int) (LAST_DAY.toEpochDay() - FIRST_DAY.toEpochDay()) + 1;
    this.dateBytes = new byte[days][];
    for (int day = 0; day < days; day++) {
      dateBytes[day] = FIRST_DAY.plusDays(day).toString().getBytes(StandardCharsets.US_ASCII);
    }
    this.joinFromDay = (int) (JOIN_FROM.toEpochDay() - FIRST_DAY.toEpochDay());
    this.joinToDay = (int) (JOIN_TO.toEpochDay() - FIRST_DAY.toEpochDay());
  }

  /** Size of the source IP pool: a tenth of the visits, so addresses repeat. */
  long ipPool() {
    return Math.max(1, visits / 10);
  }

  /** "http://www.<d1><d2>.com/<section>/page" for each combination, so a URL is two copies. */
  private static final byte[][] URL_PREFIXES = urlPrefixes();
  /** "0".."999" as bytes: most numbers written are small. */
  private static final byte[][] SMALL_NUMBERS = smallNumbers();

  private static byte[][] urlPrefixes() {
    byte[][] prefixes = new byte[DOMAINS.length * DOMAINS.length * SECTIONS.length][];
    for (int first = 0; first < DOMAINS.length; first++) {
      for (int second = 0; second < DOMAINS.length; second++) {
        for (int section = 0; section < SECTIONS.length; section++) {
          String prefix = "http://www." + new String(DOMAINS[first], StandardCharsets.US_ASCII)
              + new String(DOMAINS[second], StandardCharsets.US_ASCII) + ".com/"
              + new String(SECTIONS[section], StandardCharsets.US_ASCII) + "/page";
          prefixes[(first * DOMAINS.length + second) * SECTIONS.length + section] =
              prefix.getBytes(StandardCharsets.US_ASCII);
        }
      }
    }
    return prefixes;
  }

  private static byte[][] smallNumbers() {
    byte[][] numbers = new byte[1000][];
    for (int i = 0; i < numbers.length; i++) {
      numbers[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
    }
    return numbers;
  }

  /** The URL of page {@code index}: unique, and recomputable from the index alone. */
  static void pageUrl(Buffer out, long index) throws IOException {
    int small = (int) (index & 0x3fffffffL); // pages stay far below 2^30: int arithmetic is cheaper
    int first = small % DOMAINS.length;
    int second = (small / DOMAINS.length) % DOMAINS.length;
    int section = (small / 7) % SECTIONS.length;
    out.put(URL_PREFIXES[(first * DOMAINS.length + second) * SECTIONS.length + section]);
    out.putLong(index);
    out.put(HTML);
  }

  /** A bijection of the 32-bit space (odd multiplier), so distinct pool entries are distinct IPs. */
  static void ip(Buffer out, long poolIndex, long seed) throws IOException {
    long value = ((poolIndex + (seed & 0xffff)) * 2654435761L + 0x9e3779b9L) & 0xffffffffL;
    out.put(SMALL_NUMBERS[(int) ((value >>> 24) & 0xff)]);
    out.put((byte) '.');
    out.put(SMALL_NUMBERS[(int) ((value >>> 16) & 0xff)]);
    out.put((byte) '.');
    out.put(SMALL_NUMBERS[(int) ((value >>> 8) & 0xff)]);
    out.put((byte) '.');
    out.put(SMALL_NUMBERS[(int) (value & 0xff)]);
  }

  Stats run(File outDir) throws IOException {
    File rankingsDir = new File(outDir, "rankings");
    File visitsDir = new File(outDir, "uservisits");
    for (File dir : new File[] {rankingsDir, visitsDir}) {
      if (dir.isDirectory() && dir.list().length > 0) {
        throw new IllegalArgumentException(dir + " already contains files: use an empty --out directory");
      }
      if (!dir.isDirectory() && !dir.mkdirs()) {
        throw new IOException("cannot create " + dir);
      }
    }
    long started = System.nanoTime();
    int threads = Math.max(1, Math.min(files, Runtime.getRuntime().availableProcessors()));
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<long[]>> rankingParts = new ArrayList<>();
    List<Future<long[]>> visitParts = new ArrayList<>();
    BitSet[] usedIps = new BitSet[files];
    long pagesPerFile = (pages + files - 1) / files;
    long visitsPerFile = (visits + files - 1) / files;
    for (int part = 0; part < files; part++) {
      final int index = part;
      usedIps[part] = new BitSet();
      long firstPage = Math.min(pages, part * pagesPerFile);
      long lastPage = Math.min(pages, firstPage + pagesPerFile);
      long firstVisit = Math.min(visits, part * visitsPerFile);
      long lastVisit = Math.min(visits, firstVisit + visitsPerFile);
      rankingParts.add(pool.submit(() -> writeRankings(new File(rankingsDir, partName(index)), firstPage, lastPage)));
      visitParts.add(pool.submit(
          () -> writeVisits(new File(visitsDir, partName(index)), firstVisit, lastVisit, usedIps[index])));
    }
    Stats stats = new Stats();
    try {
      for (Future<long[]> part : rankingParts) {
        stats.rankingsBytes += part.get()[0];
      }
      for (Future<long[]> part : visitParts) {
        long[] result = part.get();
        stats.uservisitsBytes += result[0];
        stats.visits1999to2000 += result[1];
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new IOException("generating failed: " + e.getCause(), e);
    } finally {
      pool.shutdownNow();
    }
    BitSet all = new BitSet();
    for (BitSet used : usedIps) {
      all.or(used);
    }
    stats.distinctSourceIps = all.cardinality();
    stats.elapsedS = (System.nanoTime() - started) / 1e9;
    return stats;
  }

  /** SplitMix64 restarted per row from (seed, table, row): any row can be generated alone. */
  static final class RowRandom {
    private long state;

    void startRow(long seed, long table, long row) {
      state = mix(seed * 0x9E3779B97F4A7C15L ^ table * 0xBF58476D1CE4E5B9L ^ row * 0x94D049BB133111EBL);
    }

    private static long mix(long z) {
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }

    long nextLong() {
      state += 0x9E3779B97F4A7C15L;
      return mix(state);
    }

    /** Uniform in [0, bound) for bound below 2^31 (the IP pool is capped there). */
    long nextLong(long bound) {
      return ((nextLong() >>> 33) * bound) >>> 31;
    }

    int nextInt(int bound) {
      return (int) (((nextLong() >>> 32) * bound) >>> 32);
    }

    double nextDouble() {
      return (nextLong() >>> 11) * 0x1.0p-53;
    }
  }

  /** Rows [first, last) of rankings into one file; returns {bytes}. */
  private long[] writeRankings(File file, long first, long last) throws IOException {
    RowRandom random = new RowRandom();
    try (Buffer out = new Buffer(file)) {
      for (long page = first; page < last; page++) {
        random.startRow(seed, 1, page);
        pageUrl(out, page);
        out.put(DELIMITER);
        double u = random.nextDouble();
        out.putLong(1 + (long) (MAX_PAGE_RANK * u * u * u)); // power law: most pages rank low
        out.put(DELIMITER);
        out.putLong(1 + random.nextInt(100));
        out.put((byte) '\n');
      }
      out.flushAll();
      return new long[] {out.written()};
    }
  }

  /** Rows [first, last) of uservisits into one file; returns {bytes, visits in the join's range}. */
  private long[] writeVisits(File file, long first, long last, BitSet usedIps) throws IOException {
    long pool = ipPool();
    long joinVisits = 0;
    RowRandom random = new RowRandom();
    try (Buffer out = new Buffer(file)) {
      for (long visit = first; visit < last; visit++) {
        random.startRow(seed, 2, visit);
        long ipIndex = random.nextLong(pool);
        usedIps.set((int) ipIndex);
        ip(out, ipIndex, seed);
        out.put(DELIMITER);
        double u = random.nextDouble();
        pageUrl(out, Math.min(pages - 1, (long) (pages * u * u))); // popular pages visited more
        out.put(DELIMITER);
        int day = random.nextInt(days);
        if (day >= joinFromDay && day <= joinToDay) {
          joinVisits++;
        }
        out.put(dateBytes[day]);
        out.put(DELIMITER);
        int cents = random.nextInt(100_000);
        out.putLong(cents / 100);
        out.put((byte) '.');
        out.put((byte) ('0' + (cents / 10) % 10));
        out.put((byte) ('0' + cents % 10));
        out.put(DELIMITER);
        out.put(USER_AGENTS[random.nextInt(USER_AGENTS.length)]);
        out.put(DELIMITER);
        int country = random.nextInt(COUNTRIES.length);
        out.put(COUNTRIES[country]);
        out.put(DELIMITER);
        out.put(LANGUAGES[random.nextInt(4) == 0 ? random.nextInt(LANGUAGES.length) : country]);
        out.put(DELIMITER);
        out.put(WORDS[random.nextInt(WORDS.length)]);
        out.put(DELIMITER);
        out.putLong(1 + random.nextInt(100));
        out.put((byte) '\n');
      }
      out.flushAll();
      return new long[] {out.written(), joinVisits};
    }
  }

  static String partName(int part) {
    return String.format(Locale.ROOT, "part-%05d", part);
  }

  private static byte[][] bytes(String... values) {
    byte[][] encoded = new byte[values.length][];
    for (int i = 0; i < values.length; i++) {
      encoded[i] = values[i].getBytes(StandardCharsets.US_ASCII);
    }
    return encoded;
  }

  /** What was written; the campaign checks query results against it. */
  static final class Stats {
    long rankingsBytes;
    long uservisitsBytes;
    long distinctSourceIps;
    long visits1999to2000;
    double elapsedS;

    String toJson(DataGen gen) {
      double megabytes = (rankingsBytes + uservisitsBytes) / 1e6;
      return String.format(Locale.ROOT,
          "{\"pages\": %d, \"uservisits\": %d, \"seed\": %d, \"files\": %d, \"rankings_bytes\": %d, "
              + "\"uservisits_bytes\": %d, \"distinct_source_ips\": %d, \"visits_1999_2000\": %d, "
              + "\"elapsed_s\": %.3f, \"mb_per_s\": %.1f}%n",
          gen.pages, gen.visits, gen.seed, gen.files, rankingsBytes, uservisitsBytes, distinctSourceIps,
          visits1999to2000, elapsedS, elapsedS > 0 ? megabytes / elapsedS : 0.0);
    }
  }

  /**
   * A 1 MiB byte buffer over one file, synced to disk on close so timings include the disk.
   * Written through a FileChannel: its cached direct buffer avoids the per-write native
   * allocation (and page faults) of FileOutputStream.write on large arrays.
   */
  static final class Buffer implements AutoCloseable {
    private final FileOutputStream stream;
    private final FileChannel channel;
    private final byte[] bytes = new byte[1 << 20];
    private final byte[] digits = new byte[20];
    private int used;
    private long flushed;

    Buffer(File file) throws IOException {
      this.stream = new FileOutputStream(file);
      this.channel = stream.getChannel();
    }

    void put(byte value) throws IOException {
      if (used == bytes.length) {
        flush();
      }
      bytes[used++] = value;
    }

    void put(byte[] values) throws IOException {
      if (used + values.length > bytes.length) {
        flush();
      }
      if (values.length > 16) {
        System.arraycopy(values, 0, bytes, used, values.length);
        used += values.length;
        return;
      }
      byte[] target = bytes;
      int at = used;
      for (byte value : values) {
        target[at++] = value;
      }
      used = at;
    }

    void put(String ascii) throws IOException {
      for (int i = 0; i < ascii.length(); i++) {
        put((byte) ascii.charAt(i));
      }
    }

    void putLong(long value) throws IOException {
      if (value < 1000) {
        put(SMALL_NUMBERS[(int) value]);
        return;
      }
      int length = 0;
      if (value <= Integer.MAX_VALUE) {
        for (int rest = (int) value; rest > 0; rest /= 10) {
          digits[length++] = (byte) ('0' + rest % 10);
        }
      } else {
        for (long rest = value; rest > 0; rest /= 10) {
          digits[length++] = (byte) ('0' + rest % 10);
        }
      }
      if (used + length > bytes.length) {
        flush();
      }
      while (length > 0) {
        bytes[used++] = digits[--length];
      }
    }

    void flushAll() throws IOException {
      flush();
    }

    long written() {
      return flushed + used;
    }

    private void flush() throws IOException {
      ByteBuffer pending = ByteBuffer.wrap(bytes, 0, used);
      while (pending.hasRemaining()) {
        channel.write(pending);
      }
      flushed += used;
      used = 0;
    }

    @Override
    public void close() throws IOException {
      flush();
      channel.force(true);
      stream.close();
    }
  }

  static int usage(String problem) {
    System.err.println("error: " + problem);
    System.err.println(
        "usage: java -jar hivebench-datagen.jar --pages N --uservisits M --out DIR [--seed S] [--files K]");
    return 2;
  }

  static int main0(String[] args) throws IOException {
    long pages = -1;
    long visits = -1;
    long seed = 1;
    int files = Runtime.getRuntime().availableProcessors();
    String out = null;
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (i + 1 >= args.length) {
        return usage(name + " needs a value");
      }
      String value = args[++i];
      try {
        switch (name) {
          case "--pages" -> pages = Long.parseLong(value);
          case "--uservisits" -> visits = Long.parseLong(value);
          case "--seed" -> seed = Long.parseLong(value);
          case "--files" -> files = Integer.parseInt(value);
          case "--out" -> out = value;
          default -> {
            return usage("unknown argument " + name);
          }
        }
      } catch (NumberFormatException e) {
        return usage(name + " must be an integer, got '" + value + "'");
      }
    }
    if (pages < 1 || visits < 1) {
      return usage("--pages and --uservisits must be at least 1");
    }
    if (visits / 10 > Integer.MAX_VALUE) {
      return usage("--uservisits above " + (Integer.MAX_VALUE * 10L) + " is not supported");
    }
    if (files < 1) {
      return usage("--files must be at least 1");
    }
    if (out == null) {
      return usage("--out DIR is required");
    }
    DataGen gen = new DataGen(pages, visits, seed, files);
    Stats stats;
    try {
      stats = gen.run(new File(out));
    } catch (IllegalArgumentException e) {
      return usage(e.getMessage());
    }
    String json = stats.toJson(gen);
    try (FileOutputStream stream = new FileOutputStream(new File(out, "stats.json"))) {
      stream.write(json.getBytes(StandardCharsets.US_ASCII));
    }
    System.out.print(json);
    return 0;
  }

  public static void main(String[] args) throws IOException {
    System.exit(main0(args));
  }
}

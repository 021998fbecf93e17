package benchcamp.hdfsbench;

import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.GenericOptionsParser;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * Entry point: {@code hdfsbench.jar <swl|srl|rrl|swt|srt> [generic options] --dir DIR [--options]}.
 * Generic options ({@code -D k=v}, ...) may stand before or after the benchmark's name. Prints one
 * line per measurement on standard output, {@code hdfsbench: bench=... key=value ...}, and a final
 * {@code hdfsbench: done ...} line; errors go to standard error. Exit codes: 0 done, 1 I/O failure,
 * 2 bad arguments, an existing --dir, or a total beyond the file system's free space.
 */
public class HdfsBench extends Configured implements Tool {
  static final String USAGE =
      "usage: hdfsbench <swl|srl|rrl|swt|srt> [-D key=value ...] --dir DIR [--sizes 1m,16m] [--total 1g]\n"
          + "       [--clients 4] [--buffer 64k] [--block-size 128m] [--replication 3] [--reads 100]\n"
          + "       [--read-size 64k] [--seed 42]";
  static final double MB = 1 << 20;

  private PrintStream out = System.out;
  private int measurements;

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new HdfsBench(), args));
  }

  void setOut(PrintStream out) {
    this.out = out;
  }

  @Override
  public int run(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println(USAGE);
      return 2;
    }
    Configuration conf = getConf();
    // Options after the benchmark's name: ToolRunner's parser stopped at the name, parse the rest.
    String[] rest = new GenericOptionsParser(conf, Arrays.copyOfRange(args, 1, args.length)).getRemainingArgs();
    String[] all = new String[rest.length + 1];
    all[0] = args[0];
    System.arraycopy(rest, 0, all, 1, rest.length);
    Options o;
    try {
      o = Options.parse(all);
    } catch (IllegalArgumentException e) {
      System.err.println("hdfsbench: " + e.getMessage() + "\n" + USAGE);
      return 2;
    }
    if (o.blockSize != null && o.blockSize % 512 != 0) {
      // HDFS refuses block sizes that are not a multiple of the checksum chunk (512 bytes).
      System.err.println("hdfsbench: --block-size " + o.blockSize + " is not a multiple of 512");
      return 2;
    }

    Path dir = new Path(o.dir);
    FileSystem fs = dir.getFileSystem(conf);
    dir = fs.makeQualified(dir);
    // Defaults: the file system's own (for HDFS dfs.blocksize and dfs.replication of hdfs-site.xml).
    long blockSize = o.blockSize != null ? o.blockSize : fs.getDefaultBlockSize(dir);
    short replication = o.replication != null ? o.replication : fs.getDefaultReplication(dir);
    if (fs.exists(dir)) {
      System.err.println("hdfsbench: --dir " + dir + " already exists; give a new directory (the tool creates and deletes it)");
      return 2;
    }
    long raw;
    try {
      raw = Math.multiplyExact(o.bytesToWrite(), (long) replication);
    } catch (ArithmeticException e) {
      raw = Long.MAX_VALUE; // beyond any file system
    }
    FsStatus status = fs.getStatus(existingAncestor(fs, dir));
    if (raw > status.getRemaining()) {
      System.err.printf(
          Locale.ROOT,
          "hdfsbench: refused: %s needs %d bytes (%d bytes x replication %d) but %s has %d bytes remaining; nothing written%n",
          o.bench, raw, o.bytesToWriteSaturated(), replication, fs.getUri(), status.getRemaining());
      return 2;
    }

    Bench b = new Bench(conf, fs, dir, o, blockSize, replication);
    long t0 = System.nanoTime();
    if (!fs.mkdirs(dir)) {
      System.err.println("hdfsbench: could not create " + dir);
      return 1;
    }
    try {
      switch (o.bench) {
        case "swl" -> b.swl();
        case "srl" -> b.srl();
        case "rrl" -> b.rrl();
        case "swt" -> b.throughput(true);
        case "srt" -> b.throughput(false);
        default -> throw new IllegalStateException(o.bench);
      }
    } catch (IOException | ExecutionException e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      System.err.println("hdfsbench: " + o.bench + " failed: " + cause);
      return 1;
    } finally {
      fs.delete(dir, true);
    }
    out.printf(
        Locale.ROOT,
        "hdfsbench: done bench=%s measurements=%d seconds=%.6f fs=%s%n",
        o.bench, measurements, (System.nanoTime() - t0) / 1e9, fs.getUri());
    out.flush();
    return 0;
  }

  /** The nearest existing ancestor of p: local file systems report free space only for it. */
  static Path existingAncestor(FileSystem fs, Path p) throws IOException {
    Path q = p;
    while (q != null && !fs.exists(q)) {
      q = q.getParent();
    }
    return q != null ? q : new Path("/");
  }

  static String mbs(long bytes, double seconds) {
    return String.format(Locale.ROOT, "%.3f", seconds > 0 ? bytes / MB / seconds : 0.0);
  }

  /** The five benchmarks over one directory. */
  final class Bench {
    final Configuration conf;
    final FileSystem fs;
    final Path dir;
    final Options o;
    final long blockSize;
    final short replication;
    final byte[] data;

    Bench(Configuration conf, FileSystem fs, Path dir, Options o, long blockSize, short replication) {
      this.conf = conf;
      this.fs = fs;
      this.dir = dir;
      this.o = o;
      this.blockSize = blockSize;
      this.replication = replication;
      this.data = new byte[o.buffer];
      new Random(o.seed).nextBytes(data);
    }

    String common() {
      return String.format(
          Locale.ROOT, "block_size=%d replication=%d buffer=%d", blockSize, replication, o.buffer);
    }

    /** Creates, writes sequentially (buffer-sized writes) and closes one file; returns seconds. */
    double write(FileSystem f, Path p, long size) throws IOException {
      long t0 = System.nanoTime();
      FSDataOutputStream os = f.create(p, false, o.buffer, replication, blockSize);
      try {
        long left = size;
        while (left > 0) {
          int n = (int) Math.min(left, data.length);
          os.write(data, 0, n);
          left -= n;
        }
        os.hflush();
        os.close(); // waits for the last packet's acknowledgements and completes the file
      } catch (IOException | RuntimeException e) {
        String where = dataNodesOf(f, p);
        try {
          os.close(); // releases the lease; its own error repeats the one being reported
        } catch (IOException | RuntimeException again) {
          // already failed: the first error is the one to report
        }
        throw new IOException("writing " + p + " (its blocks on DataNodes " + where + ") failed: " + e, e);
      }
      return (System.nanoTime() - t0) / 1e9;
    }

    /** The DataNodes (ip:port) holding or receiving p's blocks, as the NameNode placed them:
     * a failed write or read names them, so a DataNode down mid-run is named in the error. */
    static String dataNodesOf(FileSystem f, Path p) {
      try {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        for (org.apache.hadoop.fs.BlockLocation block : f.getFileBlockLocations(p, 0, Long.MAX_VALUE)) {
          names.addAll(java.util.Arrays.asList(block.getNames()));
        }
        return names.isEmpty() ? "none known" : String.join(", ", names);
      } catch (IOException | RuntimeException e) {
        return "unknown (" + e + ")";
      }
    }

    /** Opens and reads one file end to end with buffer-sized reads; returns seconds. */
    double read(FileSystem f, Path p, long size) throws IOException {
      byte[] buf = new byte[o.buffer];
      long t0 = System.nanoTime();
      long got = 0;
      try (FSDataInputStream in = f.open(p, o.buffer)) {
        int n;
        while ((n = in.read(buf, 0, buf.length)) > 0) {
          got += n;
        }
      } catch (IOException e) {
        throw new IOException("reading " + p + " (its blocks on DataNodes " + dataNodesOf(f, p) + ") failed: " + e, e);
      }
      double s = (System.nanoTime() - t0) / 1e9;
      if (got != size) {
        throw new EOFException(p + ": read " + got + " bytes, expected " + size);
      }
      return s;
    }

    void swl() throws IOException {
      int i = 0;
      for (long size : o.sizes) {
        double s = write(fs, new Path(dir, "swl-" + i++), size);
        emit("bench=swl size_bytes=%d seconds=%.6f mb_s=%s %s", size, s, mbs(size, s), common());
      }
    }

    void srl() throws IOException {
      int i = 0;
      for (long size : o.sizes) {
        Path p = new Path(dir, "srl-" + i++);
        write(fs, p, size); // untimed
        double s = read(fs, p, size);
        emit("bench=srl size_bytes=%d seconds=%.6f mb_s=%s %s", size, s, mbs(size, s), common());
      }
    }

    void rrl() throws IOException {
      int readSize = o.effectiveReadSize();
      byte[] buf = new byte[readSize];
      int i = 0;
      for (long size : o.sizes) {
        Path p = new Path(dir, "rrl-" + i++);
        write(fs, p, size); // untimed
        Random rnd = new Random(o.seed);
        long span = size - readSize + 1; // offsets 0 .. size - readSize
        double sum = 0;
        double min = Double.MAX_VALUE;
        double max = 0;
        try (FSDataInputStream in = fs.open(p, o.buffer)) {
          for (int r = 1; r <= o.reads; r++) {
            long offset = span <= 1 ? 0 : Math.floorMod(rnd.nextLong(), span);
            long t0 = System.nanoTime();
            in.readFully(offset, buf, 0, readSize); // positioned read (pread)
            double s = (System.nanoTime() - t0) / 1e9;
            sum += s;
            min = Math.min(min, s);
            max = Math.max(max, s);
            emit(
                "bench=rrl kind=read size_bytes=%d read=%d offset=%d read_bytes=%d seconds=%.6f",
                size, r, offset, readSize, s);
          }
        }
        emit(
            "bench=rrl kind=mean size_bytes=%d reads=%d read_bytes=%d seconds=%.6f min_seconds=%.6f max_seconds=%.6f seed=%d %s",
            size, o.reads, readSize, sum / o.reads, min, max, o.seed, common());
      }
    }

    /** swt (write) or srt (read): C clients, each its own FileSystem instance and file. */
    void throughput(boolean writing) throws IOException, ExecutionException {
      int c = o.clients;
      long[] share = new long[c];
      for (int k = 0; k < c; k++) {
        share[k] = o.total / c + (k < o.total % c ? 1 : 0);
      }
      URI uri = fs.getUri();
      ExecutorService pool = Executors.newFixedThreadPool(c);
      List<FileSystem> instances = new ArrayList<>();
      try {
        for (int k = 0; k < c; k++) {
          instances.add(FileSystem.newInstance(uri, conf)); // no shared client between threads
        }
        if (!writing) {
          runAll(pool, instances, share, true, null); // the files srt reads, untimed
        }
        double[] clientSeconds = new double[c];
        long t0 = System.nanoTime();
        runAll(pool, instances, share, writing, clientSeconds);
        double s = (System.nanoTime() - t0) / 1e9;
        double min = Arrays.stream(clientSeconds).min().orElse(0);
        double max = Arrays.stream(clientSeconds).max().orElse(0);
        emit(
            "bench=%s clients=%d total_bytes=%d seconds=%.6f aggregate_mb_s=%s min_client_seconds=%.6f max_client_seconds=%.6f %s",
            writing ? "swt" : "srt", c, o.total, s, mbs(o.total, s), min, max, common());
      } finally {
        pool.shutdownNow();
        for (FileSystem f : instances) {
          f.close();
        }
      }
    }

    private void runAll(ExecutorService pool, List<FileSystem> instances, long[] share, boolean writing, double[] seconds)
        throws IOException, ExecutionException {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Double>> futures = new ArrayList<>();
      for (int k = 0; k < share.length; k++) {
        final int client = k;
        Callable<Double> task =
            () -> {
              start.await();
              Path p = new Path(dir, "client-" + client);
              FileSystem f = instances.get(client);
              return writing ? write(f, p, share[client]) : read(f, p, share[client]);
            };
        futures.add(pool.submit(task));
      }
      start.countDown();
      for (int k = 0; k < futures.size(); k++) {
        try {
          double s = futures.get(k).get();
          if (seconds != null) {
            seconds[k] = s;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
      }
    }

    void emit(String format, Object... args) {
      out.println("hdfsbench: " + String.format(Locale.ROOT, format, args));
      measurements++;
    }
  }
}

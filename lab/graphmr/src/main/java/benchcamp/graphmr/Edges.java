package benchcamp.graphmr;

import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/** Edge-list parsing and the small array helpers every algorithm shares. */
public final class Edges {
  private Edges() {}

  /**
   * Parses one line of a text edge list: {@code u v} separated by tabs or spaces, non-negative
   * integer ids; further columns (KONECT weights, timestamps) are ignored. Returns null for blank
   * lines and comments ({@code #} as in SNAP, {@code %} as in KONECT); throws on anything else.
   */
  static long[] parse(String line) {
    String s = line.strip();
    if (s.isEmpty() || s.charAt(0) == '#' || s.charAt(0) == '%') {
      return null;
    }
    String[] fields = s.split("[ \t]+");
    if (fields.length < 2) {
      throw new IllegalArgumentException("expected two node ids 'u v', found " + fields.length + " field");
    }
    return new long[] {id(fields[0]), id(fields[1])};
  }

  private static long id(String field) {
    long value;
    try {
      value = Long.parseLong(field);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("node id is not an integer: '" + field + "'");
    }
    if (value < 0) {
      throw new IllegalArgumentException("node id is negative: " + value);
    }
    return value;
  }

  /** The values sorted with duplicates removed; returns the distinct count (prefix of buf). */
  static int sortDistinct(long[] buf, int n) {
    if (n == 0) {
      return 0;
    }
    Arrays.sort(buf, 0, n);
    int k = 1;
    for (int i = 1; i < n; i++) {
      if (buf[i] != buf[k - 1]) {
        buf[k++] = buf[i];
      }
    }
    return k;
  }

  /** Intersection of two sorted distinct arrays into out; returns its length. */
  static int intersect(long[] a, int na, long[] b, int nb, long[] out) {
    int i = 0;
    int j = 0;
    int k = 0;
    while (i < na && j < nb) {
      if (a[i] < b[j]) {
        i++;
      } else if (a[i] > b[j]) {
        j++;
      } else {
        out[k++] = a[i];
        i++;
        j++;
      }
    }
    return k;
  }

  /** Collects the ids of an iterable of LongWritable into a sorted distinct array. */
  static final class Collector {
    long[] buf = new long[16];
    int n;

    void collect(Iterable<LongWritable> values) {
      n = 0;
      for (LongWritable v : values) {
        if (n == buf.length) {
          buf = Arrays.copyOf(buf, n * 2);
        }
        buf[n++] = v.get();
      }
      n = sortDistinct(buf, n);
    }
  }

  /** Where a mapper is reading, for error messages: the file and the line's byte offset. */
  static String where(Mapper<?, ?, ?, ?>.Context context, LongWritable offset) {
    InputSplit split = context.getInputSplit();
    String file = split instanceof FileSplit fs ? fs.getPath().toString() : split.toString();
    return file + " at byte offset " + offset.get();
  }

  /**
   * Text edge list to both directions: (u, v) and (v, u). Self-loops are counted and skipped; a
   * malformed line fails the task with the file, the byte offset and the problem.
   */
  public static class DirectedMapper extends Mapper<LongWritable, Text, LongWritable, LongWritable> {
    private final LongWritable from = new LongWritable();
    private final LongWritable to = new LongWritable();

    @Override
    protected void map(LongWritable offset, Text line, Context context)
        throws IOException, InterruptedException {
      long[] e;
      try {
        e = parse(line.toString());
      } catch (IllegalArgumentException ex) {
        throw new IOException("malformed edge line in " + where(context, offset) + ": " + ex.getMessage());
      }
      if (e == null) {
        return;
      }
      context.getCounter(GraphCounter.INPUT_EDGES).increment(1);
      if (e[0] == e[1]) {
        context.getCounter(GraphCounter.SELF_LOOPS).increment(1);
        return;
      }
      from.set(e[0]);
      to.set(e[1]);
      context.write(from, to);
      context.write(to, from);
    }
  }
}

package benchcamp.graphmr;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/** A sorted list of node ids (a neighbour list), serialised as a vint length and vlongs. */
public class LongArray implements Writable {
  private long[] values = new long[0];
  private int length;

  public LongArray() {}

  public LongArray(long[] values) {
    set(values, values.length);
  }

  public void set(long[] values, int length) {
    this.values = values;
    this.length = length;
  }

  public int length() {
    return length;
  }

  public long get(int i) {
    return values[i];
  }

  /** A copy of the values (Hadoop reuses value objects while iterating). */
  public long[] toArray() {
    return Arrays.copyOf(values, length);
  }

  @Override
  public void write(DataOutput out) throws IOException {
    WritableUtils.writeVInt(out, length);
    for (int i = 0; i < length; i++) {
      WritableUtils.writeVLong(out, values[i]);
    }
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    int n = WritableUtils.readVInt(in);
    if (values.length < n) {
      values = new long[n];
    }
    for (int i = 0; i < n; i++) {
      values[i] = WritableUtils.readVLong(in);
    }
    length = n;
  }

  /** Comma-separated, as the text outputs write lists. */
  @Override
  public String toString() {
    return join(values, length);
  }

  static String join(long[] values, int length) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(values[i]);
    }
    return sb.toString();
  }
}

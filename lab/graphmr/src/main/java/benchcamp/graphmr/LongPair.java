package benchcamp.graphmr;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.WritableComparable;
import org.apache.hadoop.io.WritableComparator;

/**
 * An ordered pair of non-negative node ids (a, b), serialised as two big-endian longs so that the
 * byte order is the numeric order and the shuffle compares raw bytes without deserialising.
 */
public class LongPair implements WritableComparable<LongPair> {
  private long first;
  private long second;

  public LongPair() {}

  public LongPair(long first, long second) {
    set(first, second);
  }

  public void set(long first, long second) {
    this.first = first;
    this.second = second;
  }

  /** The pair with the smaller id first. */
  public void setOrdered(long x, long y) {
    if (x <= y) {
      set(x, y);
    } else {
      set(y, x);
    }
  }

  public long first() {
    return first;
  }

  public long second() {
    return second;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeLong(first);
    out.writeLong(second);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    first = in.readLong();
    second = in.readLong();
  }

  @Override
  public int compareTo(LongPair o) {
    int c = Long.compare(first, o.first);
    return c != 0 ? c : Long.compare(second, o.second);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LongPair p && p.first == first && p.second == second;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(first) * 163 + Long.hashCode(second);
  }

  /** Tab-separated, as TextOutputFormat writes keys. */
  @Override
  public String toString() {
    return first + "\t" + second;
  }

  /** Raw comparator: ids are non-negative, so unsigned byte order equals numeric order. */
  public static class Comparator extends WritableComparator {
    public Comparator() {
      super(LongPair.class);
    }

    @Override
    public int compare(byte[] b1, int s1, int l1, byte[] b2, int s2, int l2) {
      return compareBytes(b1, s1, 16, b2, s2, 16);
    }
  }

  static {
    WritableComparator.define(LongPair.class, new Comparator());
  }
}

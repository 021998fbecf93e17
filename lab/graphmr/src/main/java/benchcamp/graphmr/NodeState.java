package benchcamp.graphmr;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * Value of the components jobs: either a node's record (its current label and its neighbour
 * list) or a label message sent to a neighbour (no list). Serialised as the label then the list
 * length, -1 for a message.
 */
public class NodeState implements Writable {
  private long label;
  private final LongArray neighbours = new LongArray();
  private boolean record;

  public void setRecord(long label, long[] neighbours, int length) {
    this.label = label;
    this.neighbours.set(neighbours, length);
    this.record = true;
  }

  public void setMessage(long label) {
    this.label = label;
    this.record = false;
  }

  public void setLabel(long label) {
    this.label = label;
  }

  public long label() {
    return label;
  }

  public boolean isRecord() {
    return record;
  }

  public LongArray neighbours() {
    return neighbours;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    WritableUtils.writeVLong(out, label);
    if (record) {
      neighbours.write(out);
    } else {
      WritableUtils.writeVInt(out, -1);
    }
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    label = WritableUtils.readVLong(in);
    int n = WritableUtils.readVInt(in);
    record = n >= 0;
    if (record) {
      long[] values = new long[n];
      for (int i = 0; i < n; i++) {
        values[i] = WritableUtils.readVLong(in);
      }
      neighbours.set(values, n);
    }
  }

  @Override
  public String toString() {
    return record ? label + "\t" + neighbours : Long.toString(label);
  }
}

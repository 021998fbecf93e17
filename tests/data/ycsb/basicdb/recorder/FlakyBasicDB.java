package benchcamp.ycsb;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import site.ycsb.BasicDB;
import site.ycsb.ByteIterator;
import site.ycsb.Status;

/** BasicDB whose every 50th update answers ERROR and every 100th read NOT_FOUND: error-path test vectors. */
public class FlakyBasicDB extends BasicDB {
  private static final AtomicLong UPDATES = new AtomicLong();
  private static final AtomicLong READS = new AtomicLong();

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    Status status = super.update(table, key, values);
    return UPDATES.incrementAndGet() % 50 == 0 ? Status.ERROR : status;
  }

  @Override
  public Status read(String table, String key, java.util.Set<String> fields, Map<String, ByteIterator> result) {
    Status status = super.read(table, key, fields, result);
    return READS.incrementAndGet() % 100 == 0 ? Status.NOT_FOUND : status;
  }
}

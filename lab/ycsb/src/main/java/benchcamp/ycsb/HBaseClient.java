package benchcamp.ycsb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.Vector;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * A YCSB binding for Apache HBase 2.x (the shaded client, {@code hbase-shaded-client}).
 *
 * <p>Each YCSB record is one HBase row keyed by the record key, each field one column (the
 * field name as qualifier) of a single column family; {@link HBaseSchema} creates the table.
 * One {@link Connection} is shared by every client thread of the JVM (it is thread safe and
 * holds the RPC connections and the region location cache), counted so that the last thread's
 * cleanup closes it; each thread has its own {@link Table}, which is not thread safe.
 *
 * <p>Durability and consistency, as YCSB asks bindings to state them: no client-side write
 * buffering (no {@code BufferedMutator}): every insert, update and delete is one RPC that
 * returns once the region server has appended the edit to its write-ahead log and synced it
 * ({@code Durability.SYNC_WAL}, HBase's default, set explicitly with {@code hbase.durability}).
 * A buffered client would acknowledge writes still sitting in its own memory, so YCSB would
 * time a buffer, not the store. On HDFS, SYNC_WAL means hflush: the edit is in the memory of
 * every DataNode of the WAL pipeline, not yet on disk (FSYNC_WAL asks for hsync). In the lab's
 * standalone HBase the WAL lives on the local file system, which cannot sync as HDFS does
 * ({@code hbase.unsafe.stream.capability.enforce=false}): there an acknowledged write is in the
 * operating system's page cache and survives an HBase crash, not a machine crash. Reads are
 * strongly consistent: each row is served by exactly one region server, so a read sees every
 * write acknowledged before it (no replica reads).
 *
 * <p>Return codes: OK; NOT_FOUND when a read finds no row (or none of the asked fields); ERROR
 * for any exception of the client (timeouts, unreachable servers), with its message on standard
 * error naming the ZooKeeper quorum.
 *
 * <p>Properties (YCSB {@code -p}): {@code columnfamily} (family), {@code hbase.zookeeper.quorum}
 * (127.0.0.1), {@code hbase.zookeeper.property.clientPort} (2181), {@code hbase.durability}
 * (SYNC_WAL; one of SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL, USE_DEFAULT), {@code table}
 * (usertable, YCSB's own). Every other {@code hbase.*} or {@code zookeeper.*} property is handed
 * to the HBase client as is. The client's defaults are cut so that an unreachable store fails a
 * run in seconds instead of HBase's retries over minutes (a lab store on loopback answers in
 * milliseconds or not at all): {@code hbase.client.retries.number} 3 (HBase: 15),
 * {@code zookeeper.recovery.retry} 1 (30, one second apart), {@code zookeeper.session.timeout}
 * 10000 ms (90 s; it also bounds a ZooKeeper connection attempt), {@code hbase.rpc.timeout}
 * 10000 ms (60 s), {@code hbase.client.operation.timeout} and
 * {@code hbase.client.meta.operation.timeout} 30000 ms (20 min). With nothing listening, init
 * fails after ~10 s (measured), once per JVM: the other client threads get the same error. Three
 * retries (~0.6 s of pauses) ride over a region moving, not over a long split; the study's
 * tables never split (100,000 rows of 1 KB at most, HBase splits a lone region at 256 MB; a
 * table {@link ResetTable} pre-splits stays in the regions it was created in), and
 * {@code -p hbase.client.retries.number=15} restores HBase's default.
 *
 * <p>On Java 17 the HBase client wants {@code --add-opens java.base/java.nio=ALL-UNNAMED} for its
 * Unsafe byte comparisons; without it, it falls back to plain Java ones (a warning silenced in
 * this jar's simplelogger.properties), which costs the client a little CPU, not the store.
 */
public final class HBaseClient extends DB {
  private static final Object LOCK = new Object();
  private static Connection connection;
  private static String connectedTo;
  private static DBException connectFailure;
  private static int users;

  private Settings settings;
  private byte[] family;
  private String tableName;
  private Table table;

  /** Settings read from YCSB properties, kept apart so they can be tested without a server. */
  static final class Settings {
    static final Map<String, String> CLIENT_DEFAULTS = Map.of(
        "hbase.client.retries.number", "3",
        "zookeeper.recovery.retry", "1",
        "zookeeper.recovery.retry.intervalmill", "200",
        "zookeeper.session.timeout", "10000",
        "hbase.rpc.timeout", "10000",
        "hbase.client.operation.timeout", "30000",
        "hbase.client.meta.operation.timeout", "30000");

    final String quorum;
    final int zookeeperPort;
    final String family;
    final String table;
    final Durability durability;
    /** What the HBase client's Configuration gets on top of its defaults. */
    final Map<String, String> client = new LinkedHashMap<>();

    Settings(Properties properties) {
      quorum = HBaseSchema.quorum(properties.getProperty("hbase.zookeeper.quorum", "127.0.0.1"));
      zookeeperPort = HBaseSchema.port(properties.getProperty("hbase.zookeeper.property.clientPort", "2181"),
          "hbase.zookeeper.property.clientPort");
      family = Schema.identifier(properties.getProperty("columnfamily", "family"), "columnfamily");
      table = Schema.identifier(properties.getProperty("table", "usertable"), "table");
      String level = properties.getProperty("hbase.durability", "SYNC_WAL").trim().toUpperCase();
      try {
        durability = Durability.valueOf(level);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("hbase.durability=" + level + " is not one of SKIP_WAL, ASYNC_WAL, "
            + "SYNC_WAL, FSYNC_WAL, USE_DEFAULT", e);
      }
      client.putAll(CLIENT_DEFAULTS);
      for (String name : new TreeSet<>(properties.stringPropertyNames())) {
        if ((name.startsWith("hbase.") || name.startsWith("zookeeper.")) && !"hbase.durability".equals(name)) {
          client.put(name, properties.getProperty(name));
        }
      }
      client.put("hbase.zookeeper.quorum", quorum);
      client.put("hbase.zookeeper.property.clientPort", Integer.toString(zookeeperPort));
    }

    /** Where the client starts: the ZooKeeper quorum, each host with the port. */
    String where() {
      StringBuilder hosts = new StringBuilder();
      for (String host : quorum.split(",")) {
        hosts.append(hosts.length() == 0 ? "" : ",").append(host).append(':').append(zookeeperPort);
      }
      return "ZooKeeper " + hosts;
    }

    Configuration configuration() {
      Configuration configuration = HBaseConfiguration.create();
      client.forEach(configuration::set);
      return configuration;
    }
  }

  @Override
  public void init() throws DBException {
    try {
      settings = new Settings(getProperties());
    } catch (IllegalArgumentException e) {
      throw new DBException(e.getMessage(), e);
    }
    family = bytes(settings.family);
    synchronized (LOCK) {
      if (connectFailure != null) {  // the other client threads of a run that cannot connect fail at once
        throw new DBException(connectFailure.getMessage(), connectFailure);
      }
      if (connection == null) {
        try {
          connection = connect(settings);
        } catch (DBException e) {
          connectFailure = e;
          throw e;
        }
        connectedTo = settings.where();
      } else if (!connectedTo.equals(settings.where())) {
        throw new DBException("one JVM talks to one HBase: " + connectedTo + ", not " + settings.where());
      }
      users++;
    }
    StartBarrier.await(getProperties());  // several clients of one run: their operations start together
  }

  /** Connects and finds the table's first region, so that an unreachable store or a missing
   * table fails here, once, naming where it looked, rather than as an ERROR per operation. */
  private static Connection connect(Settings settings) throws DBException {
    Connection created = null;
    try {
      created = ConnectionFactory.createConnection(settings.configuration());
      try (RegionLocator locator = created.getRegionLocator(TableName.valueOf(settings.table))) {
        locator.getRegionLocation(HConstants.EMPTY_START_ROW);
      }
      return created;
    } catch (IOException | RuntimeException e) {
      closeQuietly(created);
      if (e instanceof TableNotFoundException) {
        throw new DBException("table " + settings.table + " does not exist in HBase at " + settings.where()
            + " (create it with benchcamp.ycsb.HBaseSchema)", e);
      }
      throw new DBException("cannot reach HBase at " + settings.where() + ": " + e.getMessage(), e);
    }
  }

  private static void closeQuietly(Connection created) {
    if (created != null) {
      try {
        created.close();
      } catch (IOException ignored) {
        // already failing: the first error is the one to report
      }
    }
  }

  @Override
  public void cleanup() throws DBException {
    try {
      if (table != null) {
        table.close();
        table = null;
      }
    } catch (IOException e) {
      throw new DBException("closing table " + tableName + ": " + e.getMessage(), e);
    } finally {
      synchronized (LOCK) {
        users--;
        if (users == 0 && connection != null) {
          closeQuietly(connection);
          connection = null;
          connectedTo = null;
        }
      }
    }
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private Table table(String name) throws IOException {
    if (table == null || !name.equals(tableName)) {
      if (table != null) {
        table.close();
      }
      table = connection.getTable(TableName.valueOf(name));
      tableName = name;
    }
    return table;
  }

  private Status failed(String operation, String key, Exception e) {
    System.err.println("hbase " + operation + " of " + key + " failed (HBase at " + settings.where() + "): " + e);
    return Status.ERROR;
  }

  static Get get(String key, byte[] family, Set<String> fields) {
    Get get = new Get(bytes(key));
    if (fields == null) {
      get.addFamily(family);
    } else {
      for (String field : fields) {
        get.addColumn(family, bytes(field));
      }
    }
    return get;
  }

  static Scan scan(String startKey, int count, byte[] family, Set<String> fields) {
    Scan scan = new Scan().withStartRow(bytes(startKey)).setLimit(count).setCaching(Math.min(count, 1000));
    if (fields == null) {
      scan.addFamily(family);
    } else {
      for (String field : fields) {
        scan.addColumn(family, bytes(field));
      }
    }
    return scan;
  }

  static Put put(String key, byte[] family, Map<String, ByteIterator> values, Durability durability) {
    Put put = new Put(bytes(key)).setDurability(durability);
    for (Map.Entry<String, ByteIterator> value : values.entrySet()) {
      put.addColumn(family, bytes(value.getKey()), value.getValue().toArray());
    }
    return put;
  }

  /** A read's status: an empty result (no such row, or none of the fields) is NOT_FOUND. */
  static Status readStatus(Result result) {
    return result == null || result.isEmpty() ? Status.NOT_FOUND : Status.OK;
  }

  static void copy(Result result, Map<String, ByteIterator> values) {
    for (Cell cell : result.rawCells()) {
      values.put(new String(CellUtil.cloneQualifier(cell), StandardCharsets.UTF_8),
          new ByteArrayByteIterator(CellUtil.cloneValue(cell)));
    }
  }

  @Override
  public Status read(String tableName, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      Result row = table(tableName).get(get(key, family, fields));
      Status status = readStatus(row);
      if (status.isOk()) {
        copy(row, result);
      }
      return status;
    } catch (IOException | RuntimeException e) {
      return failed("read", key, e);
    }
  }

  @Override
  public Status scan(String tableName, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    try (ResultScanner rows = table(tableName).getScanner(scan(startkey, recordcount, family, fields))) {
      for (Result row : rows) {
        HashMap<String, ByteIterator> values = new HashMap<>();
        copy(row, values);
        result.add(values);
      }
      return Status.OK;
    } catch (IOException | RuntimeException e) {
      return failed("scan", startkey, e);
    }
  }

  /** An update writes the given columns and leaves the row's others, as YCSB expects. */
  @Override
  public Status update(String tableName, String key, Map<String, ByteIterator> values) {
    return write("update", tableName, key, values);
  }

  @Override
  public Status insert(String tableName, String key, Map<String, ByteIterator> values) {
    return write("insert", tableName, key, values);
  }

  /** Insert and update are the same Put in HBase; only the name in an error differs. */
  private Status write(String operation, String tableName, String key, Map<String, ByteIterator> values) {
    try {
      table(tableName).put(put(key, family, values, settings.durability));
      return Status.OK;
    } catch (IOException | RuntimeException e) {
      return failed(operation, key, e);
    }
  }

  @Override
  public Status delete(String tableName, String key) {
    try {
      table(tableName).delete(new Delete(bytes(key)).setDurability(settings.durability));
      return Status.OK;
    } catch (IOException | RuntimeException e) {
      return failed("delete", key, e);
    }
  }
}

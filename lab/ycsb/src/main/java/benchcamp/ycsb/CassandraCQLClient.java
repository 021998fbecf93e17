package benchcamp.ycsb;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * A YCSB binding for Apache Cassandra over CQL (DataStax Java driver 4).
 *
 * <p>The table is {@code <keyspace>.<table>} with a text primary key {@code y_id} and one text
 * column per YCSB field; {@link Schema} creates it. One driver session is shared by every
 * client thread of the JVM (the driver is thread safe and pools its connections); statements
 * are prepared once per distinct field set.
 *
 * <p>Consistency and durability, as YCSB asks bindings to state them: reads and writes use
 * {@code cassandra.readconsistencylevel} / {@code cassandra.writeconsistencylevel}, ONE by
 * default as YCSB's own CQL binding (on the study's single node ONE, QUORUM and ALL are the same;
 * on a ring QUORUM reads and writes are the usual read-your-writes choice). Durability is the server's: the lab node syncs its commit
 * log periodically (Cassandra's default, every 10 s), so an acknowledged write may be lost if
 * the node crashes within that window, as on a default production install.
 *
 * <p>Return codes: OK; NOT_FOUND when a read finds no row; ERROR with the driver's message on
 * standard error for anything the driver throws (timeouts, unavailable replicas).
 *
 * <p>Properties: {@code cassandra.hosts} (default 127.0.0.1), {@code cassandra.port} (9042),
 * {@code cassandra.keyspace} (ycsb), {@code cassandra.replicationfactor} (1: the copies of each
 * row the keyspace keeps, SimpleStrategy; {@link ResetTable} sets it), {@code
 * cassandra.datacenter} (datacenter1), {@code table} (usertable, YCSB's own property).
 */
public final class CassandraCQLClient extends DB {
  static final String KEY = "y_id";

  private static final Object LOCK = new Object();
  private static CqlSession session;
  private static int users;
  private static final Map<String, PreparedStatement> PREPARED = new ConcurrentHashMap<>();

  private ConsistencyLevel readLevel;
  private ConsistencyLevel writeLevel;
  private String keyspace;

  /** Settings read from YCSB properties, kept separate so they can be tested without a server. */
  static final class Settings {
    final List<InetSocketAddress> contactPoints = new ArrayList<>();
    final String keyspace;
    final String datacenter;
    final int replicationFactor;
    final ConsistencyLevel readLevel;
    final ConsistencyLevel writeLevel;

    Settings(Properties properties) {
      int port = Integer.parseInt(properties.getProperty("cassandra.port", "9042"));
      for (String host : properties.getProperty("cassandra.hosts", "127.0.0.1").split(",")) {
        if (!host.isBlank()) {
          contactPoints.add(new InetSocketAddress(host.trim(), port));
        }
      }
      if (contactPoints.isEmpty()) {
        throw new IllegalArgumentException("cassandra.hosts names no host");
      }
      keyspace = properties.getProperty("cassandra.keyspace", "ycsb");
      if (!keyspace.matches("[A-Za-z][A-Za-z0-9_]{0,47}")) {
        throw new IllegalArgumentException("cassandra.keyspace '" + keyspace + "' is not a CQL identifier");
      }
      datacenter = properties.getProperty("cassandra.datacenter", "datacenter1");
      String copies = properties.getProperty("cassandra.replicationfactor", "1").trim();
      if (!copies.matches("[1-9]")) {
        throw new IllegalArgumentException("cassandra.replicationfactor=" + copies + " is not 1 to 9");
      }
      replicationFactor = Integer.parseInt(copies);
      readLevel = level(properties, "cassandra.readconsistencylevel");
      writeLevel = level(properties, "cassandra.writeconsistencylevel");
    }

    private static ConsistencyLevel level(Properties properties, String name) {
      String value = properties.getProperty(name, "ONE").trim().toUpperCase();
      try {
        return DefaultConsistencyLevel.valueOf(value);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(name + "=" + value + " is not a consistency level", e);
      }
    }
  }

  /**
   * The driver's defaults, except that closing the session does not wait netty's 2 s quiet
   * period: YCSB times its client threads' cleanup into RunTime and throughput, so an idle wait
   * at close would bias every Cassandra figure (seen: CLEANUP 2,020 ms in a 7.6 s run).
   */
  static DriverConfigLoader driverConfig() {
    return DriverConfigLoader.programmaticBuilder()
        .withInt(DefaultDriverOption.NETTY_IO_SHUTDOWN_QUIET_PERIOD, 0)
        .withInt(DefaultDriverOption.NETTY_ADMIN_SHUTDOWN_QUIET_PERIOD, 0)
        .build();
  }

  @Override
  public void init() throws DBException {
    Settings settings;
    try {
      settings = new Settings(getProperties());
    } catch (IllegalArgumentException e) {
      throw new DBException(e.getMessage(), e);
    }
    try {
      Schema.identifier(getProperties().getProperty("table", "usertable"), "table");
    } catch (IllegalArgumentException e) {
      throw new DBException(e.getMessage(), e);
    }
    readLevel = settings.readLevel;
    writeLevel = settings.writeLevel;
    keyspace = settings.keyspace;
    synchronized (LOCK) {
      if (session == null) {
        try {
          session = CqlSession.builder()
              .addContactPoints(settings.contactPoints)
              .withLocalDatacenter(settings.datacenter)
              .withKeyspace(settings.keyspace)
              .withConfigLoader(driverConfig())
              .build();
        } catch (RuntimeException e) {
          throw new DBException("cannot connect to Cassandra at " + settings.contactPoints + ": " + e.getMessage(), e);
        }
      }
      users++;
    }
    StartBarrier.await(getProperties());  // several clients of one run: their operations start together
  }

  @Override
  public void cleanup() throws DBException {
    synchronized (LOCK) {
      users--;
      if (users == 0 && session != null) {
        session.close();
        session = null;
        PREPARED.clear();
      }
    }
  }

  static String columns(Set<String> fields) {
    return fields == null ? "*" : String.join(", ", new TreeSet<>(fields));
  }

  private PreparedStatement prepare(String cql) {
    return PREPARED.computeIfAbsent(keyspace + "|" + cql, ignored -> session.prepare(cql));
  }

  private static void copy(Row row, Set<String> fields, Map<String, ByteIterator> result) {
    for (var column : row.getColumnDefinitions()) {
      String name = column.getName().asInternal();
      if (!KEY.equals(name) && (fields == null || fields.contains(name))) {
        String value = row.getString(name);
        result.put(name, new StringByteIterator(value == null ? "" : value));
      }
    }
  }

  private static Status failed(String operation, RuntimeException e) {
    System.err.println("cassandra " + operation + " failed: " + e);
    return Status.ERROR;
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      PreparedStatement statement = prepare("SELECT " + columns(fields) + " FROM " + table + " WHERE " + KEY + " = ?");
      Row row = session.execute(statement.bind(key).setConsistencyLevel(readLevel)).one();
      if (row == null) {
        return Status.NOT_FOUND;
      }
      copy(row, fields, result);
      return Status.OK;
    } catch (RuntimeException e) {
      return failed("read", e);
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    try {
      PreparedStatement statement = prepare("SELECT " + (fields == null ? "*" : KEY + ", " + columns(fields))
          + " FROM " + table + " WHERE token(" + KEY + ") >= token(?) LIMIT ?");
      ResultSet rows = session.execute(statement.bind(startkey, recordcount).setConsistencyLevel(readLevel));
      for (Row row : rows) {
        HashMap<String, ByteIterator> values = new HashMap<>();
        copy(row, fields, values);
        result.add(values);
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return failed("scan", e);
    }
  }

  private Status write(String operation, String table, String key, Map<String, ByteIterator> values) {
    try {
      TreeSet<String> names = new TreeSet<>(values.keySet());
      String cql = "INSERT INTO " + table + " (" + KEY + ", " + String.join(", ", names) + ") VALUES (?"
          + ", ?".repeat(names.size()) + ")";
      BoundStatement bound = prepare(cql).bind().setString(0, key);
      int index = 1;
      for (String name : names) {
        bound = bound.setString(index++, values.get(name).toString());
      }
      session.execute(bound.setConsistencyLevel(writeLevel));
      return Status.OK;
    } catch (RuntimeException e) {
      return failed(operation, e);
    }
  }

  /** CQL's INSERT is an upsert: an update writes the given columns and leaves the others. */
  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return write("update", table, key, values);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    return write("insert", table, key, values);
  }

  @Override
  public Status delete(String table, String key) {
    try {
      session.execute(prepare("DELETE FROM " + table + " WHERE " + KEY + " = ?").bind(key)
          .setConsistencyLevel(writeLevel));
      return Status.OK;
    } catch (RuntimeException e) {
      return failed("delete", e);
    }
  }
}

package benchcamp.ycsb;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import java.io.IOException;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Empties YCSB's table in the store under test, as the study did before every test (the
 * campaign's execute step runs it before {@code -load}): a table of the expected schema is
 * truncated, any other is dropped and created.
 *
 * <p>{@code java -cp ... benchcamp.ycsb.ResetTable STORE TABLE [-p name=value ...]} takes the
 * same {@code -p} properties as the YCSB client, so the table is made where the binding will
 * look for it (cassandra.hosts/port/keyspace, fieldcount; for HBase the ZooKeeper quorum and
 * columnfamily, and {@value #HBASE_REGIONS}: the regions HBase's table is created in, 1 by
 * default as on the lab's single region server; a distributed HBase's environment names one per
 * region server so that every server holds a share of the table). Exit status 0 when the table is empty and ready, 2 for bad arguments, 1 when
 * the store cannot be reached or refuses (the message names the store's address).
 */
public final class ResetTable {
  private ResetTable() {}

  /** The property naming the regions HBase's table is created in (default 1). */
  static final String HBASE_REGIONS = "benchcamp.hbase.regions";

  static int hbaseRegions(Properties properties) {
    return HBaseSchema.regions(properties.getProperty(HBASE_REGIONS, "1"), HBASE_REGIONS);
  }

  /** {@code -p name=value} pairs after STORE and TABLE; anything else is refused. */
  static Properties properties(String[] args, int from) {
    Properties properties = new Properties();
    for (int i = from; i < args.length; i += 2) {
      if (!"-p".equals(args[i]) || i + 1 >= args.length || !args[i + 1].contains("=")) {
        throw new IllegalArgumentException("expected '-p name=value', got '" + args[i] + "'");
      }
      String[] pair = args[i + 1].split("=", 2);
      properties.setProperty(pair[0], pair[1]);
    }
    return properties;
  }

  static int fieldCount(Properties properties) {
    int fieldCount = Integer.parseInt(properties.getProperty("fieldcount", "10"));
    if (fieldCount < 1 || fieldCount > 100) {
      throw new IllegalArgumentException("fieldcount must be 1..100, not " + fieldCount);
    }
    return fieldCount;
  }

  /** Longest a schema change or TRUNCATE may take before the reset fails. */
  static final Duration ADMIN_REQUEST_TIMEOUT = Duration.ofSeconds(60);

  /**
   * The client's configuration with a 60 s request timeout instead of the driver's 2 s: a
   * TRUNCATE flushes and snapshots the table and a schema change waits for agreement, which on
   * a loaded host took longer than 2 s ("Query timed out after PT2S" failed a repetition before
   * anything was measured). The benchmark's own requests keep the driver's default.
   */
  static DriverConfigLoader adminConfig() {
    return DriverConfigLoader.programmaticBuilder()
        .withInt(DefaultDriverOption.NETTY_IO_SHUTDOWN_QUIET_PERIOD, 0)
        .withInt(DefaultDriverOption.NETTY_ADMIN_SHUTDOWN_QUIET_PERIOD, 0)
        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, ADMIN_REQUEST_TIMEOUT)
        .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, ADMIN_REQUEST_TIMEOUT)
        .build();
  }

  /** "1 copy", "3 copies": of every row, as the keyspace keeps them. */
  static String copies(CassandraCQLClient.Settings settings) {
    return settings.replicationFactor + (settings.replicationFactor == 1 ? " copy" : " copies");
  }

  static String resetCassandra(Properties properties, String table) {
    CassandraCQLClient.Settings settings = new CassandraCQLClient.Settings(properties);
    int fieldCount = fieldCount(properties);
    try (CqlSession session = CqlSession.builder()
        .addContactPoints(settings.contactPoints)
        .withLocalDatacenter(settings.datacenter)
        .withConfigLoader(adminConfig())
        .build()) {
      String replication = "{'class': 'SimpleStrategy', 'replication_factor': " + settings.replicationFactor + "}";
      session.execute("CREATE KEYSPACE IF NOT EXISTS " + settings.keyspace + " WITH replication = " + replication);
      String name = settings.keyspace + "." + table;
      String kept = session.getMetadata().getKeyspace(settings.keyspace)
          .map(keyspace -> keyspace.getReplication().get("replication_factor")).orElse(null);
      boolean copiesChanged = !String.valueOf(settings.replicationFactor).equals(kept);
      if (copiesChanged) {
        // a keyspace left by a run with other copies: the table is made anew under the asked ones
        session.execute("ALTER KEYSPACE " + settings.keyspace + " WITH replication = " + replication);
        session.execute("DROP TABLE IF EXISTS " + name);
      }
      Set<String> columns = copiesChanged ? Set.of() : session.getMetadata().getKeyspace(settings.keyspace)
          .flatMap(keyspace -> keyspace.getTable(table))
          .map(existing -> existing.getColumns().keySet().stream()
              .map(column -> column.asInternal()).collect(Collectors.toSet()))
          .orElse(Set.of());
      if (columns.equals(Schema.cassandraColumns(fieldCount))) {
        // same schema: emptying it is the same clean state, in ~0.1 s instead of ~2.5 s for a
        // drop and create (each a schema change the node must apply and agree on)
        session.execute("TRUNCATE " + name);
        return "truncated " + name + " (" + fieldCount + " fields, " + copies(settings) + ") on Cassandra at "
            + settings.contactPoints;
      }
      session.execute("DROP TABLE IF EXISTS " + name);
      session.execute(Schema.cassandraTable(settings.keyspace, table, fieldCount));
      return "created " + name + " (" + fieldCount + " fields, " + copies(settings) + ") on Cassandra at "
          + settings.contactPoints;
    } catch (RuntimeException e) {
      throw new IllegalStateException("Cassandra at " + settings.contactPoints + ": " + e.getMessage(), e);
    }
  }

  public static void main(String[] args) {
    if (args.length < 2) {
      System.err.println("usage: ResetTable cassandra|hbase TABLE [-p name=value ...]");
      System.exit(2);
    }
    String store = args[0];
    Properties properties;
    String table;
    try {
      table = Schema.identifier(args[1], "table");
      properties = properties(args, 2);
      if (!"cassandra".equals(store) && !"hbase".equals(store)) {
        throw new IllegalArgumentException("unknown store '" + store + "' (cassandra, hbase)");
      }
      fieldCount(properties);
      hbaseRegions(properties);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
      return;
    }
    try {
      String done = switch (store) {
        case "cassandra" -> resetCassandra(properties, table);
        default -> resetHBase(properties, table);
      };
      System.out.println(done);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
    } catch (RuntimeException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(1);
    }
  }

  /** The binding's own settings (quorum, ZooKeeper port, columnfamily) and the table's regions,
   * then {@link HBaseSchema#reset}. */
  static String resetHBase(Properties properties, String table) {
    HBaseClient.Settings settings = new HBaseClient.Settings(properties);
    int regions = hbaseRegions(properties);
    try {
      HBaseSchema.reset(settings.quorum, settings.zookeeperPort, table, settings.family, regions);
    } catch (IOException e) {
      throw new IllegalStateException("HBase at " + settings.where() + ": " + e.getMessage(), e);
    }
    return "created " + table + " (column family " + settings.family + ", " + regions
        + (regions == 1 ? " region" : " regions") + ") on HBase at " + settings.where();
  }
}

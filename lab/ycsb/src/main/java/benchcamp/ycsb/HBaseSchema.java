package benchcamp.ycsb;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;

/**
 * Drops and creates YCSB's table in HBase, as the study did before every load.
 *
 * <p>{@code java -cp ... benchcamp.ycsb.HBaseSchema [QUORUM] [ZKPORT] [TABLE] [FAMILY]}
 * (127.0.0.1, 2181, usertable, family) disables and deletes TABLE if it exists and creates it
 * with the one column family FAMILY that {@link HBaseClient} writes, in one region (no pre-split;
 * {@link #reset(String, int, String, String, int)} splits it into several, as a distributed
 * HBase spreads a table over its region servers).
 * Exit status 0 on success, 2 on bad arguments, 1 when the store fails. Its client has the YCSB
 * binding's short retries (with nothing listening it gives up after ~40 s: the table lookup and
 * its meta lookups each retry); a master still initialising, which
 * refuses DDL for a few seconds after a start (PleaseHoldException), is waited for up to 60 s.
 */
public final class HBaseSchema {
  private HBaseSchema() {}

  static String quorum(String value) {
    if (!value.matches("[A-Za-z0-9][A-Za-z0-9.-]{0,252}(,[A-Za-z0-9][A-Za-z0-9.-]{0,252})*")) {
      throw new IllegalArgumentException("ZooKeeper quorum '" + value + "' is not a comma-separated host list");
    }
    return value;
  }

  static int port(String value, String what) {
    int port;
    try {
      port = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " '" + value + "' is not a port number", e);
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(what + " " + port + " is not a port number (1-65535)");
    }
    return port;
  }

  static Configuration configuration(String quorum, int zookeeperPort) {
    Configuration configuration = HBaseConfiguration.create();
    HBaseClient.Settings.CLIENT_DEFAULTS.forEach(configuration::set);
    configuration.set("hbase.zookeeper.quorum", quorum);
    configuration.setInt("hbase.zookeeper.property.clientPort", zookeeperPort);
    return configuration;
  }

  /** Whether HBase refused because its master has not finished starting (worth waiting for). */
  static boolean masterInitialising(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (String.valueOf(cause).contains("PleaseHoldException")) {
        return true;
      }
    }
    return false;
  }

  /** Most regions a table may be created with. */
  static final int MAX_REGIONS = 1000;

  /** A region count from a property's text: 1..{@value #MAX_REGIONS}. */
  static int regions(String value, String what) {
    int regions;
    try {
      regions = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " '" + value + "' is not a number of regions", e);
    }
    if (regions < 1 || regions > MAX_REGIONS) {
      throw new IllegalArgumentException(what + " must be 1.." + MAX_REGIONS + ", not " + regions);
    }
    return regions;
  }

  /**
   * The split keys of a table created in {@code regions} regions: YCSB's own recipe for HBase
   * ({@code user1000} to {@code user9999} cut in equal steps, what its docs give the shell's
   * {@code create ... SPLITS}). YCSB's keys are {@code user} and a hashed decimal number, so
   * each region gets a similar share of the rows; none for one region.
   */
  static byte[][] splitKeys(int regions) {
    byte[][] keys = new byte[regions - 1][];
    for (int i = 1; i < regions; i++) {
      keys[i - 1] = HBaseClient.bytes("user" + (1000 + i * (9999 - 1000) / regions));
    }
    return keys;
  }

  /** {@link #reset(String, int, String, String, int)} in one region. */
  public static void reset(String quorum, int zookeeperPort, String table, String family) throws IOException {
    reset(quorum, zookeeperPort, table, family, 1);
  }

  /** Disables and deletes the table if it exists, then creates it with one column family in
   * {@code regions} regions (split by {@link #splitKeys}); waits (up to 60 s) while the master is
   * still initialising. */
  public static void reset(String quorum, int zookeeperPort, String table, String family, int regions)
      throws IOException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (true) {
      try {
        resetOnce(quorum, zookeeperPort, table, family, regions);
        return;
      } catch (IOException e) {
        if (!masterInitialising(e) || System.nanoTime() > deadline) {
          throw e;
        }
      }
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while the HBase master initialises", e);
      }
    }
  }

  private static void resetOnce(String quorum, int zookeeperPort, String table, String family, int regions)
      throws IOException {
    TableName name = TableName.valueOf(Schema.identifier(table, "table"));
    Schema.identifier(family, "column family");
    try (Connection connection = ConnectionFactory.createConnection(configuration(quorum(quorum), zookeeperPort));
        Admin admin = connection.getAdmin()) {
      if (admin.tableExists(name)) {
        if (!admin.isTableDisabled(name)) {
          admin.disableTable(name);
        }
        admin.deleteTable(name);
      }
      var descriptor = TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(family))
          .build();
      if (regions == 1) {
        admin.createTable(descriptor);
      } else {
        admin.createTable(descriptor, splitKeys(regions));
      }
    }
  }

  public static void main(String[] args) {
    if (args.length > 4) {
      System.err.println("usage: HBaseSchema [QUORUM] [ZKPORT] [TABLE] [FAMILY]");
      System.exit(2);
    }
    String quorum;
    int port;
    String table;
    String family;
    try {
      quorum = quorum(args.length > 0 ? args[0] : "127.0.0.1");
      port = port(args.length > 1 ? args[1] : "2181", "ZooKeeper port");
      table = Schema.identifier(args.length > 2 ? args[2] : "usertable", "table");
      family = Schema.identifier(args.length > 3 ? args[3] : "family", "column family");
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
      return;
    }
    try {
      reset(quorum, port, table, family);
      System.out.println("created " + table + " with column family " + family + " in HBase at ZooKeeper "
          + quorum + ":" + port);
    } catch (IOException | RuntimeException e) {
      System.err.println("error: HBase at ZooKeeper " + quorum + ":" + port + ": " + e.getMessage());
      System.exit(1);
    }
  }
}

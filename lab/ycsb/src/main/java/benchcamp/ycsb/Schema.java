package benchcamp.ycsb;

import com.datastax.oss.driver.api.core.CqlSession;
import java.net.InetSocketAddress;

/**
 * Drops and creates YCSB's table, as the study did before every test.
 *
 * <p>{@code java -cp ... benchcamp.ycsb.Schema cassandra HOST PORT [KEYSPACE] [TABLE] [FIELDCOUNT]}
 * creates keyspace KEYSPACE (ycsb, SimpleStrategy, one replica: the study's single node) if
 * missing and recreates TABLE (usertable) with a text key {@code y_id} and FIELDCOUNT (10) text
 * columns field0..field9. Exit status 0 on success, 2 on bad arguments, 1 when the store fails.
 */
public final class Schema {
  private Schema() {}

  static String identifier(String value, String what) {
    if (!value.matches("[A-Za-z][A-Za-z0-9_]{0,47}")) {
      throw new IllegalArgumentException(what + " '" + value + "' is not an identifier");
    }
    return value;
  }

  static String cassandraTable(String keyspace, String table, int fieldCount) {
    StringBuilder cql = new StringBuilder("CREATE TABLE " + keyspace + "." + table + " (" + CassandraCQLClient.KEY
        + " text PRIMARY KEY");
    for (int i = 0; i < fieldCount; i++) {
      cql.append(", field").append(i).append(" text");
    }
    return cql.append(")").toString();
  }

  public static void main(String[] args) {
    if (args.length < 3 || !"cassandra".equals(args[0])) {
      System.err.println("usage: Schema cassandra HOST PORT [KEYSPACE] [TABLE] [FIELDCOUNT]");
      System.exit(2);
    }
    String keyspace;
    String table;
    int fieldCount;
    int port;
    try {
      port = Integer.parseInt(args[2]);
      keyspace = identifier(args.length > 3 ? args[3] : "ycsb", "keyspace");
      table = identifier(args.length > 4 ? args[4] : "usertable", "table");
      fieldCount = Integer.parseInt(args.length > 5 ? args[5] : "10");
      if (fieldCount < 1 || fieldCount > 100) {
        throw new IllegalArgumentException("fieldcount must be 1..100, not " + fieldCount);
      }
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
      return;
    }
    try (CqlSession session = CqlSession.builder()
        .addContactPoint(new InetSocketAddress(args[1], port))
        .withLocalDatacenter("datacenter1")
        .build()) {
      session.execute("CREATE KEYSPACE IF NOT EXISTS " + keyspace
          + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      session.execute("DROP TABLE IF EXISTS " + keyspace + "." + table);
      session.execute(cassandraTable(keyspace, table, fieldCount));
      System.out.println("created " + keyspace + "." + table + " with " + fieldCount + " fields on " + args[1] + ":" + port);
    } catch (RuntimeException e) {
      System.err.println("error: Cassandra at " + args[1] + ":" + port + ": " + e.getMessage());
      System.exit(1);
    }
  }
}

package benchcamp.ycsb;

/**
 * YCSB's Cassandra table: {@link ResetTable} drops and creates it before every test.
 *
 * <p>The keyspace (ycsb) is SimpleStrategy with one replica (the study's single node); the table
 * (usertable) has a text key {@code y_id} and FIELDCOUNT (10) text columns field0..field9.
 */
public final class Schema {
  private Schema() {}

  static String identifier(String value, String what) {
    if (!value.matches("[A-Za-z][A-Za-z0-9_]{0,47}")) {
      throw new IllegalArgumentException(what + " '" + value + "' is not an identifier");
    }
    return value;
  }

  /** The columns of {@link #cassandraTable}: the key and field0..field(N-1). */
  static java.util.Set<String> cassandraColumns(int fieldCount) {
    java.util.Set<String> columns = new java.util.HashSet<>();
    columns.add(CassandraCQLClient.KEY);
    for (int i = 0; i < fieldCount; i++) {
      columns.add("field" + i);
    }
    return columns;
  }

  static String cassandraTable(String keyspace, String table, int fieldCount) {
    StringBuilder cql = new StringBuilder("CREATE TABLE " + keyspace + "." + table + " (" + CassandraCQLClient.KEY
        + " text PRIMARY KEY");
    for (int i = 0; i < fieldCount; i++) {
      cql.append(", field").append(i).append(" text");
    }
    return cql.append(")").toString();
  }
}

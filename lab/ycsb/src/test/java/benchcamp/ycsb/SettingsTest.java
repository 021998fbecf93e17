package benchcamp.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SettingsTest {
  @Test
  void defaultsAreTheLabNodeAtOneAsYcsbsBinding() {
    CassandraCQLClient.Settings settings = new CassandraCQLClient.Settings(new Properties());
    assertEquals("127.0.0.1", settings.contactPoints.get(0).getHostString());
    assertEquals(9042, settings.contactPoints.get(0).getPort());
    assertEquals("ycsb", settings.keyspace);
    assertEquals(DefaultConsistencyLevel.ONE, settings.readLevel);
    assertEquals(DefaultConsistencyLevel.ONE, settings.writeLevel);
    assertEquals(1, settings.replicationFactor);
  }

  @Test
  void propertiesOverrideTheDefaults() {
    Properties properties = new Properties();
    properties.setProperty("cassandra.hosts", "10.0.0.1, 10.0.0.2");
    properties.setProperty("cassandra.port", "19042");
    properties.setProperty("cassandra.readconsistencylevel", "quorum");
    properties.setProperty("cassandra.replicationfactor", "3");
    CassandraCQLClient.Settings settings = new CassandraCQLClient.Settings(properties);
    assertEquals(2, settings.contactPoints.size());
    assertEquals(19042, settings.contactPoints.get(1).getPort());
    assertEquals(DefaultConsistencyLevel.QUORUM, settings.readLevel);
    assertEquals(DefaultConsistencyLevel.ONE, settings.writeLevel);
    assertEquals(3, settings.replicationFactor);
  }

  @Test
  void badValuesAreRefusedWithTheirName() {
    Properties properties = new Properties();
    properties.setProperty("cassandra.writeconsistencylevel", "MOST");
    IllegalArgumentException error =
        assertThrows(IllegalArgumentException.class, () -> new CassandraCQLClient.Settings(properties));
    assertEquals("cassandra.writeconsistencylevel=MOST is not a consistency level", error.getMessage());
    Properties keyspace = new Properties();
    keyspace.setProperty("cassandra.keyspace", "ycsb; DROP KEYSPACE system");
    assertThrows(IllegalArgumentException.class, () -> new CassandraCQLClient.Settings(keyspace));
    Properties copies = new Properties();
    copies.setProperty("cassandra.replicationfactor", "3}; DROP KEYSPACE system");
    assertEquals("cassandra.replicationfactor=3}; DROP KEYSPACE system is not 1 to 9",
        assertThrows(IllegalArgumentException.class, () -> new CassandraCQLClient.Settings(copies)).getMessage());
  }

  @Test
  void theTableHasTheKeyAndOneTextColumnPerField() {
    assertEquals("CREATE TABLE ycsb.usertable (y_id text PRIMARY KEY, field0 text, field1 text)",
        Schema.cassandraTable("ycsb", "usertable", 2));
    assertEquals("field0, field1", CassandraCQLClient.columns(Set.of("field1", "field0")));
    assertEquals("*", CassandraCQLClient.columns(null));
    assertThrows(IllegalArgumentException.class, () -> Schema.identifier("user'table", "table"));
  }
}

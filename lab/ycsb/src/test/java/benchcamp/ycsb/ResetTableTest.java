package benchcamp.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class ResetTableTest {
  @Test
  void takesTheClientsPropertySwitches() {
    Properties properties =
        ResetTable.properties(new String[] {"cassandra", "usertable", "-p", "cassandra.port=19042", "-p", "a=b=c"}, 2);
    assertEquals("19042", properties.getProperty("cassandra.port"));
    assertEquals("b=c", properties.getProperty("a"));
  }

  @Test
  void refusesAnythingButPropertySwitches() {
    IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
        () -> ResetTable.properties(new String[] {"cassandra", "usertable", "-threads", "4"}, 2));
    assertEquals("expected '-p name=value', got '-threads'", error.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> ResetTable.properties(new String[] {"cassandra", "usertable", "-p"}, 2));
  }

  @Test
  void fieldCountIsBounded() {
    Properties properties = new Properties();
    assertEquals(10, ResetTable.fieldCount(properties));
    properties.setProperty("fieldcount", "0");
    assertThrows(IllegalArgumentException.class, () -> ResetTable.fieldCount(properties));
  }

  @Test
  void hbaseTablesHaveOneRegionUnlessTheEnvironmentAsksForMore() {
    Properties properties = new Properties();
    assertEquals(1, ResetTable.hbaseRegions(properties));
    assertEquals(0, HBaseSchema.splitKeys(1).length);
    properties.setProperty("benchcamp.hbase.regions", "3");
    assertEquals(3, ResetTable.hbaseRegions(properties));
    byte[][] keys = HBaseSchema.splitKeys(3);
    assertEquals(java.util.List.of("user3999", "user6999"), java.util.Arrays.stream(keys)
        .map(key -> new String(key, java.nio.charset.StandardCharsets.UTF_8)).toList());
    for (int regions = 2; regions <= 16; regions++) {  // sorted and distinct: HBase refuses others
      byte[][] split = HBaseSchema.splitKeys(regions);
      for (int i = 1; i < split.length; i++) {
        assertTrue(org.apache.hadoop.hbase.util.Bytes.compareTo(split[i - 1], split[i]) < 0);
      }
    }
    properties.setProperty("benchcamp.hbase.regions", "0");
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> ResetTable.hbaseRegions(properties));
    assertEquals("benchcamp.hbase.regions must be 1..1000, not 0", zero.getMessage());
    properties.setProperty("benchcamp.hbase.regions", "three");
    assertThrows(IllegalArgumentException.class, () -> ResetTable.hbaseRegions(properties));
  }

  @Test
  void theExpectedColumnsAreTheKeyAndTheFields() {
    assertEquals(java.util.Set.of("y_id", "field0", "field1"), Schema.cassandraColumns(2));
  }

  @Test
  void schemaChangesAndTruncateWaitLongerThanTheBenchmarksRequests() {
    var admin = ResetTable.adminConfig().getInitialConfig().getDefaultProfile();
    var client = CassandraCQLClient.driverConfig().getInitialConfig().getDefaultProfile();
    assertEquals(java.time.Duration.ofSeconds(60), admin.getDuration(
        com.datastax.oss.driver.api.core.config.DefaultDriverOption.REQUEST_TIMEOUT));
    assertEquals(java.time.Duration.ofSeconds(2), client.getDuration(
        com.datastax.oss.driver.api.core.config.DefaultDriverOption.REQUEST_TIMEOUT));
  }
}

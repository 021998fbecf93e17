package benchcamp.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellBuilderFactory;
import org.apache.hadoop.hbase.CellBuilderType;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

class HBaseSettingsTest {
  private static final byte[] FAMILY = HBaseClient.bytes("family");

  private static Properties properties(String... pairs) {
    Properties properties = new Properties();
    for (int i = 0; i < pairs.length; i += 2) {
      properties.setProperty(pairs[i], pairs[i + 1]);
    }
    return properties;
  }

  @Test
  void defaultsAreTheLabStoreWithSyncedWalAndShortRetries() {
    HBaseClient.Settings settings = new HBaseClient.Settings(new Properties());
    assertEquals("127.0.0.1", settings.quorum);
    assertEquals(2181, settings.zookeeperPort);
    assertEquals("family", settings.family);
    assertEquals("usertable", settings.table);
    assertEquals(Durability.SYNC_WAL, settings.durability);
    assertEquals("ZooKeeper 127.0.0.1:2181", settings.where());
    Configuration configuration = settings.configuration();
    assertEquals("127.0.0.1", configuration.get("hbase.zookeeper.quorum"));
    assertEquals(2181, configuration.getInt("hbase.zookeeper.property.clientPort", 0));
    assertEquals(3, configuration.getInt("hbase.client.retries.number", 0));
    assertEquals(1, configuration.getInt("zookeeper.recovery.retry", 0));
    assertEquals(10000, configuration.getInt("hbase.rpc.timeout", 0));
    assertEquals(30000, configuration.getInt("hbase.client.operation.timeout", 0));
  }

  @Test
  void propertiesOverrideTheDefaultsAndHBaseOnesPassThrough() {
    HBaseClient.Settings settings = new HBaseClient.Settings(properties(
        "hbase.zookeeper.quorum", "zk1,zk2.example", "hbase.zookeeper.property.clientPort", "12181",
        "columnfamily", "cf", "hbase.durability", "async_wal", "hbase.rpc.timeout", "500",
        "hbase.client.scanner.caching", "50", "readproportion", "0.5"));
    assertEquals("ZooKeeper zk1:12181,zk2.example:12181", settings.where());
    assertEquals("cf", settings.family);
    assertEquals(Durability.ASYNC_WAL, settings.durability);
    assertEquals("500", settings.client.get("hbase.rpc.timeout"));
    assertEquals("50", settings.client.get("hbase.client.scanner.caching"));
    assertEquals("12181", settings.client.get("hbase.zookeeper.property.clientPort"));
    assertFalse(settings.client.containsKey("readproportion"));
    assertFalse(settings.client.containsKey("hbase.durability"));
  }

  @Test
  void badValuesAreRefusedWithTheirName() {
    IllegalArgumentException durability = assertThrows(IllegalArgumentException.class,
        () -> new HBaseClient.Settings(properties("hbase.durability", "ALWAYS")));
    assertTrue(durability.getMessage().startsWith("hbase.durability=ALWAYS is not one of"));
    IllegalArgumentException port = assertThrows(IllegalArgumentException.class,
        () -> new HBaseClient.Settings(properties("hbase.zookeeper.property.clientPort", "21x81")));
    assertEquals("hbase.zookeeper.property.clientPort '21x81' is not a port number", port.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> new HBaseClient.Settings(properties("hbase.zookeeper.property.clientPort", "70000")));
    assertThrows(IllegalArgumentException.class,
        () -> new HBaseClient.Settings(properties("columnfamily", "fam;ily")));
    assertThrows(IllegalArgumentException.class,
        () -> new HBaseClient.Settings(properties("table", "user table")));
    assertThrows(IllegalArgumentException.class,
        () -> new HBaseClient.Settings(properties("hbase.zookeeper.quorum", "127.0.0.1 && rm")));
    assertThrows(IllegalArgumentException.class,
        () -> new HBaseClient.Settings(properties("hbase.zookeeper.quorum", "")));
  }

  @Test
  void schemaToolArgumentsAreValidated() {
    assertEquals("a.example,b", HBaseSchema.quorum("a.example,b"));
    assertThrows(IllegalArgumentException.class, () -> HBaseSchema.quorum("a,,b"));
    assertEquals(2181, HBaseSchema.port(" 2181", "ZooKeeper port"));
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> HBaseSchema.port("0", "ZooKeeper port"));
    assertEquals("ZooKeeper port 0 is not a port number (1-65535)", zero.getMessage());
    Configuration configuration = HBaseSchema.configuration("127.0.0.1", 12181);
    assertEquals(12181, configuration.getInt("hbase.zookeeper.property.clientPort", 0));
    assertEquals(3, configuration.getInt("hbase.client.retries.number", 0));
    assertTrue(HBaseSchema.masterInitialising(new java.io.IOException("retries exhausted",
        new org.apache.hadoop.hbase.PleaseHoldException("Master is initializing"))));
    assertFalse(HBaseSchema.masterInitialising(new java.io.IOException("ConnectionLoss for /hbase")));
  }

  @Test
  void writesAreOnePutPerRecordWithTheChosenDurability() {
    Map<String, ByteIterator> values = new LinkedHashMap<>();
    values.put("field0", new StringByteIterator("zero"));
    values.put("field1", new StringByteIterator("one"));
    Put put = HBaseClient.put("user1", FAMILY, values, Durability.SYNC_WAL);
    assertArrayEquals(HBaseClient.bytes("user1"), put.getRow());
    assertEquals(Durability.SYNC_WAL, put.getDurability());
    assertEquals(2, put.size());
    List<Cell> cells = put.get(FAMILY, HBaseClient.bytes("field1"));
    assertEquals("one", new String(cells.get(0).getValueArray(), cells.get(0).getValueOffset(),
        cells.get(0).getValueLength(), StandardCharsets.UTF_8));
  }

  @Test
  void readsAskForTheFieldsOrTheWholeFamily() {
    Get all = HBaseClient.get("user1", FAMILY, null);
    assertTrue(all.getFamilyMap().containsKey(FAMILY));
    assertEquals(null, all.getFamilyMap().get(FAMILY));
    Get some = HBaseClient.get("user1", FAMILY, Set.of("field3"));
    assertEquals(1, some.getFamilyMap().get(FAMILY).size());
    Scan scan = HBaseClient.scan("user5", 100, FAMILY, null);
    assertArrayEquals(HBaseClient.bytes("user5"), scan.getStartRow());
    assertEquals(100, scan.getLimit());
    assertEquals(100, scan.getCaching());
  }

  @Test
  void anEmptyReadIsNotFoundAndCellsAreCopiedByQualifier() {
    assertEquals(Status.NOT_FOUND, HBaseClient.readStatus(Result.EMPTY_RESULT));
    assertEquals(Status.NOT_FOUND, HBaseClient.readStatus(null));
    Cell cell = CellBuilderFactory.create(CellBuilderType.DEEP_COPY).setRow(HBaseClient.bytes("user1"))
        .setFamily(FAMILY).setQualifier(HBaseClient.bytes("field0")).setTimestamp(1L)
        .setType(Cell.Type.Put).setValue(HBaseClient.bytes("zero")).build();
    Result row = Result.create(new Cell[] {cell});
    assertEquals(Status.OK, HBaseClient.readStatus(row));
    Map<String, ByteIterator> values = new HashMap<>();
    HBaseClient.copy(row, values);
    assertEquals("zero", values.get("field0").toString());
  }
}

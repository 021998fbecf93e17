package benchcamp.hivebench;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The map-only job in this JVM (Hadoop's local job runner, the local file system): every part of
 * both tables is byte for byte the single-process generator's, and so are the statistics.
 */
public class DataGenJobTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static final String[] STATS = {
    "pages", "uservisits", "seed", "files", "rankings_bytes", "uservisits_bytes", "distinct_source_ips", "visits_1999_2000"
  };

  private static Configuration local() {
    Configuration conf = new Configuration();
    conf.set("mapreduce.framework.name", "local");
    conf.set("fs.defaultFS", "file:///");
    conf.setInt("mapreduce.local.map.tasks.maximum", 2);
    return conf;
  }

  private static String stat(File json, String name) throws IOException {
    String text = Files.readString(json.toPath());
    String rest = text.substring(text.indexOf("\"" + name + "\": ") + name.length() + 4);
    int end = rest.indexOf(',');
    return (end < 0 ? rest.substring(0, rest.indexOf('}')) : rest.substring(0, end)).trim();
  }

  @Test
  public void everyPartIsTheSingleProcessGeneratorsBytes() throws Exception {
    // 7 visits per part but the last part short (50 = 7 x 7 + 1), and pages fewer than parts:
    // the split of rows must be the generator's, empty parts included.
    String[] common = {"--pages", "5", "--uservisits", "50", "--seed", "3", "--files", "7"};
    File single = tmp.newFolder("single");
    String[] singleArgs = concat(common, "--out", single.getPath());
    assertEquals(0, DataGen.main0(singleArgs));

    File cluster = new File(tmp.getRoot(), "cluster");
    File stats = new File(tmp.getRoot(), "job-stats.json");
    String[] jobArgs = concat(common, "--out", cluster.getPath(), "--stats", stats.getPath());
    assertEquals(0, ToolRunner.run(local(), new DataGenJob(), jobArgs));

    for (String table : new String[] {"rankings", "uservisits"}) {
      String[] names = new File(single, table).list();
      java.util.Arrays.sort(names);
      assertEquals(7, names.length);
      for (String name : names) {
        File mapped = new File(new File(cluster, table), name);
        assertTrue(table + "/" + name + " was not written by the job", mapped.isFile());
        assertArrayEquals(table + "/" + name,
            Files.readAllBytes(new File(new File(single, table), name).toPath()), Files.readAllBytes(mapped.toPath()));
      }
      // nothing but the parts (and Hadoop's checksum files) in the table's directory
      for (String name : new File(cluster, table).list()) {
        assertTrue(name, name.startsWith("part-") || name.startsWith(".part-"));
      }
    }
    assertFalse("the parts' IP sets are removed", new File(cluster, DataGenJob.IPS).exists());
    for (File json : new File[] {stats, new File(cluster, "stats.json")}) {
      for (String name : STATS) {
        assertEquals(name, stat(new File(single, "stats.json"), name), stat(json, name));
      }
    }
  }

  @Test
  public void badArgumentsAreRefusedBeforeAJobStarts() throws Exception {
    File out = new File(tmp.getRoot(), "out");
    assertEquals(2, ToolRunner.run(local(), new DataGenJob(), new String[] {"--pages", "5", "--uservisits", "50", "--out", out.getPath()}));
    assertEquals(2, ToolRunner.run(local(), new DataGenJob(),
        new String[] {"--pages", "x", "--uservisits", "50", "--files", "2", "--out", out.getPath()}));
    assertFalse(out.exists());
    // an output that already holds a table is never overwritten
    File used = tmp.newFolder("used", "rankings");
    Files.writeString(new File(used, "part-00000").toPath(), "kept\n");
    File root = used.getParentFile();
    assertEquals(2, ToolRunner.run(local(), new DataGenJob(),
        new String[] {"--pages", "5", "--uservisits", "50", "--files", "2", "--out", root.getPath()}));
    assertEquals("kept\n", Files.readString(new File(used, "part-00000").toPath()));
  }

  private static String[] concat(String[] first, String... rest) {
    String[] all = new String[first.length + rest.length];
    System.arraycopy(first, 0, all, 0, first.length);
    System.arraycopy(rest, 0, all, first.length, rest.length);
    return all;
  }
}

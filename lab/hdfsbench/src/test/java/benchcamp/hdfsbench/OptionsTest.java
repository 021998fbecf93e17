package benchcamp.hdfsbench;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.junit.Test;

public class OptionsTest {
  @Test
  public void sizes() {
    assertEquals(512L, Options.parseSize("x", "512"));
    assertEquals(512L, Options.parseSize("x", "512b"));
    assertEquals(64L << 10, Options.parseSize("x", "64k"));
    assertEquals(1L << 20, Options.parseSize("x", "1m"));
    assertEquals(16L << 20, Options.parseSize("x", "16M"));
    assertEquals(1L << 20, Options.parseSize("x", "1mb"));
    assertEquals(1L << 30, Options.parseSize("x", "1g"));
    assertEquals(40L << 30, Options.parseSize("x", "40G"));
    assertEquals(2L << 40, Options.parseSize("x", "2t"));
    assertEquals(List.of(1L << 20, 16L << 20, 128L << 20), Options.parseSizes("sizes", "1m,16m,128m"));
  }

  @Test
  public void badSizesAreRefused() {
    for (String bad : new String[] {"", "m", "0", "0m", "-1m", "1.5m", "1x", "1 m", "abc", "99999999999999999999",
        "9000000p", "b"}) {
      IllegalArgumentException e =
          assertThrows(bad, IllegalArgumentException.class, () -> Options.parseSize("sizes", bad));
      assertTrue(e.getMessage(), e.getMessage().startsWith("--sizes:"));
    }
    assertThrows(IllegalArgumentException.class, () -> Options.parseSizes("sizes", "1m,,4m"));
    assertThrows(IllegalArgumentException.class, () -> Options.parseSizes("sizes", "1m,"));
  }

  @Test
  public void fullCommandLine() {
    Options o =
        Options.parse(
            new String[] {"rrl", "--dir", "/bench/x", "--sizes=1m,4m", "--buffer", "128k", "--block-size", "128m",
                "--replication", "2", "--reads", "50", "--read-size", "4k", "--seed", "7"});
    assertEquals("rrl", o.bench);
    assertEquals("/bench/x", o.dir);
    assertEquals(List.of(1L << 20, 4L << 20), o.sizes);
    assertEquals(128 << 10, o.buffer);
    assertEquals(Long.valueOf(128L << 20), o.blockSize);
    assertEquals(Short.valueOf((short) 2), o.replication);
    assertEquals(50, o.reads);
    assertEquals(4096, o.effectiveReadSize());
    assertEquals(7L, o.seed);
    assertEquals(5L << 20, o.bytesToWrite());

    Options t = Options.parse(new String[] {"swt", "--dir", "d", "--total", "1g", "--clients", "16"});
    assertEquals(1L << 30, t.total);
    assertEquals(16, t.clients);
    assertNull(t.blockSize);
    assertNull(t.replication);
    assertEquals(1L << 30, t.bytesToWrite());
  }

  @Test
  public void badCommandLinesAreRefused() {
    String[][] bad = {
      {},
      {"xyz", "--dir", "d"},
      {"swl"},
      {"swl", "--dir"},
      {"swl", "--dir", "d", "--bogus", "1"},
      {"swl", "--dir", "d", "stray"},
      {"swt", "--dir", "d", "--clients", "0"},
      {"swt", "--dir", "d", "--clients", "many"},
      {"swt", "--dir", "d", "--clients", "8", "--total", "4"},
      {"swl", "--dir", "d", "--replication", "0"},
      {"swl", "--dir", "d", "--buffer", "4g"},
      {"rrl", "--dir", "d", "--sizes", "1k", "--read-size", "4k"},
      {"rrl", "--dir", "d", "--reads", "-3"},
    };
    for (String[] args : bad) {
      assertThrows(String.join(" ", args), IllegalArgumentException.class, () -> Options.parse(args));
    }
  }

  private static int runTool(PrintStream out, String... args) throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", "file:///");
    HdfsBench tool = new HdfsBench();
    tool.setOut(out);
    return ToolRunner.run(conf, tool, args);
  }

  @Test
  public void totalBeyondFreeSpaceIsRefusedBeforeWriting() throws Exception {
    File tmp = Files.createTempDirectory("hdfsbench-test").toFile();
    File dir = new File(tmp, "bench");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int rc = runTool(new PrintStream(buf, true, StandardCharsets.UTF_8), "swt", "--dir", dir.getPath(), "--total",
        "1000000t", "--replication", "1");
    assertEquals(2, rc);
    assertFalse(dir.exists());
    assertEquals("", buf.toString(StandardCharsets.UTF_8));
    tmp.delete();
  }

  @Test
  public void overflowingTotalsAreRefusedToo() throws Exception {
    File tmp = Files.createTempDirectory("hdfsbench-test").toFile();
    File dir = new File(tmp, "bench");
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertEquals(2, runTool(out, "swl", "--dir", dir.getPath(), "--sizes", "8000000t,8000000t"));
    assertEquals(2, runTool(out, "swt", "--dir", dir.getPath(), "--total", "4000000t", "--replication", "3"));
    assertFalse(dir.exists());
    tmp.delete();
  }

  @Test
  public void existingDirIsRefused() throws Exception {
    File tmp = Files.createTempDirectory("hdfsbench-test").toFile();
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int rc = runTool(new PrintStream(buf, true, StandardCharsets.UTF_8), "swl", "--dir", tmp.getPath());
    assertEquals(2, rc);
    assertTrue(tmp.isDirectory());
    tmp.delete();
  }

  @Test
  public void swlOnTheLocalFileSystem() throws Exception {
    File tmp = Files.createTempDirectory("hdfsbench-test").toFile();
    File dir = new File(tmp, "bench");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int rc = runTool(new PrintStream(buf, true, StandardCharsets.UTF_8), "swl", "-D", "dfs.replication=1", "--dir",
        dir.getPath(), "--sizes", "64k,1m", "--buffer", "4k");
    assertEquals(0, rc);
    String[] lines = buf.toString(StandardCharsets.UTF_8).split("\n");
    assertEquals(3, lines.length);
    assertTrue(lines[0], lines[0].startsWith("hdfsbench: bench=swl size_bytes=65536 seconds="));
    assertTrue(lines[1], lines[1].contains(" size_bytes=1048576 ") && lines[1].endsWith("replication=1 buffer=4096"));
    assertTrue(lines[2], lines[2].startsWith("hdfsbench: done bench=swl measurements=2 "));
    assertFalse("the tool deletes its directory", dir.exists());
    tmp.delete();
  }
}

package benchcamp.hivebench;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class DataGenTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private File generate(String... args) throws IOException {
    File out = tmp.newFolder();
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--out";
    all[args.length + 1] = out.getPath();
    assertEquals(0, DataGen.main0(all));
    return out;
  }

  private static List<String> lines(File dir) throws IOException {
    List<String> lines = new ArrayList<>();
    File[] parts = dir.listFiles();
    java.util.Arrays.sort(parts);
    for (File part : parts) {
      lines.addAll(Files.readAllLines(part.toPath()));
    }
    return lines;
  }

  private static long stat(File out, String name) throws IOException {
    String json = Files.readString(new File(out, "stats.json").toPath());
    String rest = json.substring(json.indexOf("\"" + name + "\": ") + name.length() + 4);
    return Long.parseLong(rest.substring(0, rest.indexOf(',')).trim());
  }

  @Test
  public void sameSeedSameBytesOtherSeedOtherBytes() throws IOException {
    File a = generate("--pages", "500", "--uservisits", "3000", "--seed", "7");
    File b = generate("--pages", "500", "--uservisits", "3000", "--seed", "7");
    File c = generate("--pages", "500", "--uservisits", "3000", "--seed", "8");
    byte[] first = Files.readAllBytes(new File(a, "uservisits/part-00000").toPath());
    assertArrayEquals(first, Files.readAllBytes(new File(b, "uservisits/part-00000").toPath()));
    assertFalse(java.util.Arrays.equals(first, Files.readAllBytes(new File(c, "uservisits/part-00000").toPath())));
  }

  @Test
  public void theDataDoesNotDependOnTheNumberOfFiles() throws IOException {
    File one = generate("--pages", "300", "--uservisits", "150000", "--files", "1");
    File four = generate("--pages", "300", "--uservisits", "150000", "--files", "4");
    assertTrue("same uservisits rows", lines(new File(one, "uservisits")).equals(lines(new File(four, "uservisits"))));
    assertTrue("same rankings rows", lines(new File(one, "rankings")).equals(lines(new File(four, "rankings"))));
    assertEquals(stat(one, "distinct_source_ips"), stat(four, "distinct_source_ips"));
  }

  @Test
  public void rowsFieldsAndStatsAreExact() throws IOException {
    File out = generate("--pages", "1000", "--uservisits", "20000", "--files", "3");
    List<String> rankings = lines(new File(out, "rankings"));
    List<String> visits = lines(new File(out, "uservisits"));
    assertEquals(3, new File(out, "uservisits").list().length);
    assertEquals(1000, rankings.size());
    assertEquals(20000, visits.size());
    Set<String> urls = new HashSet<>();
    for (String row : rankings) {
      String[] fields = row.split("\\|", -1);
      assertEquals(3, fields.length);
      urls.add(fields[0]);
    }
    assertEquals("page URLs are unique", 1000, urls.size());
    Set<String> ips = new HashSet<>();
    long inJoinRange = 0;
    long bytes = 0;
    for (String row : visits) {
      String[] fields = row.split("\\|", -1);
      assertEquals(9, fields.length);
      assertTrue("destURL is a page: " + fields[1], urls.contains(fields[1]));
      assertTrue(fields[2].compareTo("1995-01-01") >= 0 && fields[2].compareTo("2005-12-31") <= 0);
      if (fields[2].compareTo("1999-01-01") >= 0 && fields[2].compareTo("2000-01-01") <= 0) {
        inJoinRange++;
      }
      Double.parseDouble(fields[3]);
      ips.add(fields[0]);
      bytes += row.length() + 1;
    }
    assertEquals(ips.size(), stat(out, "distinct_source_ips"));
    assertEquals(inJoinRange, stat(out, "visits_1999_2000"));
    assertEquals(bytes, stat(out, "uservisits_bytes"));
    assertTrue("IPs repeat", ips.size() < visits.size() / 2);
    assertTrue("1999 is a fraction", inJoinRange > visits.size() / 20 && inJoinRange < visits.size() / 5);
  }

  @Test
  public void refusesBadArgumentsAndANonEmptyDirectory() throws IOException {
    assertEquals(2, DataGen.main0(new String[] {"--pages", "0", "--uservisits", "5", "--out", tmp.newFolder().getPath()}));
    assertEquals(2, DataGen.main0(new String[] {"--pages", "x", "--uservisits", "5", "--out", "o"}));
    assertEquals(2, DataGen.main0(new String[] {"--bogus", "1"}));
    File out = generate("--pages", "5", "--uservisits", "50");
    assertEquals(2, DataGen.main0(new String[] {"--pages", "5", "--uservisits", "50", "--out", out.getPath()}));
  }
}

package benchcamp.hivebench;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
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

  private static String sha256(File dir) throws IOException {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      File[] parts = dir.listFiles();
      java.util.Arrays.sort(parts);
      for (File part : parts) {
        digest.update(Files.readAllBytes(part.toPath()));
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * The bytes of the generator as it was before the encoder was made fast (commit 8f2d49c, the
   * String/per-byte version): campaigns generated before and after it get the same data.
   */
  @Test
  public void theDataIsByteForByteWhatEarlierVersionsWrote() throws IOException {
    File a = generate("--pages", "1000", "--uservisits", "20000", "--seed", "1", "--files", "3");
    assertEquals("5b59a07eab7b980471ecb3389c6d4984bc34595446fdd9b096d396265a348881", sha256(new File(a, "rankings")));
    assertEquals("e1c6db7a30ef1ee3738c3cce267dcf3b8b4fe5265e41ab419ef541bb43dd8a0f", sha256(new File(a, "uservisits")));
    assertEquals(1772, stat(a, "visits_1999_2000"));
    assertEquals(2000, stat(a, "distinct_source_ips"));
    File b = generate("--pages", "5000", "--uservisits", "200000", "--seed", "42", "--files", "2");
    assertEquals("293331cbdd76e84dcaef57d6be770956f596c3916236a82f0db75f226c7a2e63", sha256(new File(b, "rankings")));
    assertEquals("18579f71049b1de9a7144393b7eb63ecd30b718d4879d0e3be66f27fd89f0edd", sha256(new File(b, "uservisits")));
    assertEquals(18170, stat(b, "visits_1999_2000"));
    assertEquals(19999, stat(b, "distinct_source_ips"));
  }

  private static String encoded(byte[] out, int end) {
    return new String(out, 0, end, StandardCharsets.US_ASCII);
  }

  @Test
  public void numbersAreWrittenInDecimal() {
    List<Long> values = new ArrayList<>(List.of(0L, 1L, 9L, 10L, 99L, 100L, 10_000L, 99_999_999L,
        100_000_000L, 100_000_001L, 132_000_000L, 1_000_000_000_000L, Long.MAX_VALUE));
    for (long power = 1; power > 0 && power <= Long.MAX_VALUE / 10; power *= 10) {
      values.add(power - 1);
      values.add(power);
      values.add(power + 1);
    }
    Random random = new Random(3);
    for (int i = 0; i < 100_000; i++) {
      values.add((long) random.nextInt(200_000_000));
      values.add(random.nextLong() >>> (1 + random.nextInt(63))); // at least 0
    }
    byte[] out = new byte[64];
    for (long value : values) {
      out[0] = '<';
      int end = DataGen.putDecimal(out, 1, value);
      assertEquals(Long.toString(value).length(), DataGen.decimalLength(value));
      assertEquals("<" + value, encoded(out, end));
    }
  }

  @Test
  public void urlsAndIpsAreTheDocumentedStrings() {
    byte[] out = new byte[DataGen.MAX_ROW];
    long[] pages = {0, 1, 6, 7, 25, 26, 675, 676, 12_345, 99_999_999L, 100_000_000L, 131_999_999L, (1L << 30) + 5};
    for (long page : pages) {
      int small = (int) (page & 0x3fffffffL);
      String expected = "http://www." + DataGen.DOMAINS[small % 26] + DataGen.DOMAINS[small / 26 % 26] + ".com/"
          + DataGen.SECTIONS[small / 7 % 12] + "/page" + page + ".html|";
      assertEquals(expected, encoded(out, DataGen.pageUrl(out, 0, page)));
    }
    long[] pool = {0, 1, 2, 255, 1_000_000, 2_147_483_647L};
    for (long seed : new long[] {1, 42, -7}) {
      for (long index : pool) {
        long value = ((index + (seed & 0xffff)) * 2654435761L + 0x9e3779b9L) & 0xffffffffL;
        String expected = (value >>> 24) + "." + (value >>> 16 & 0xff) + "." + (value >>> 8 & 0xff) + "." + (value & 0xff) + "|";
        assertEquals(expected, encoded(out, DataGen.ip(out, 0, index, seed)));
      }
    }
  }

  @Test
  public void theDateTableIsEveryDayFrom1995To2005() {
    int days = (int) (DataGen.LAST_DAY.toEpochDay() - DataGen.FIRST_DAY.toEpochDay()) + 1;
    DataGen.Wide table = DataGen.dateTable(days);
    byte[] out = new byte[32];
    for (int day = 0; day < days; day++) {
      assertEquals(DataGen.FIRST_DAY.plusDays(day) + "|", encoded(out, table.put(out, 0, day)));
    }
    assertEquals(LocalDate.of(2005, 12, 31) + "|", encoded(out, table.put(out, 0, days - 1)));
  }

  @Test
  public void statsJsonAndPartNamesAreFormattedAsBefore() {
    for (int part : new int[] {0, 7, 12_345, 99_999, 123_456}) {
      assertEquals(String.format(Locale.ROOT, "part-%05d", part), DataGen.partName(part));
    }
    DataGen gen = new DataGen(5, 50, 3, 2);
    DataGen.Stats stats = new DataGen.Stats();
    stats.rankingsBytes = 244;
    stats.uservisitsBytes = 7531;
    stats.distinctSourceIps = 5;
    stats.visits1999to2000 = 4;
    for (double elapsed : new double[] {0.0, 0.0005, 0.0125, 1.23456, 0.7, 12.0, 3.14159e-7}) {
      stats.elapsedS = elapsed;
      String before = String.format(Locale.ROOT,
          "{\"pages\": %d, \"uservisits\": %d, \"seed\": %d, \"files\": %d, \"rankings_bytes\": %d, "
              + "\"uservisits_bytes\": %d, \"distinct_source_ips\": %d, \"visits_1999_2000\": %d, "
              + "\"elapsed_s\": %.3f, \"mb_per_s\": %.1f}%n",
          5L, 50L, 3L, 2, 244L, 7531L, 5L, 4L, elapsed, elapsed > 0 ? 7775 / 1e6 / elapsed : 0.0);
      assertEquals(before, stats.toJson(gen));
    }
  }

  @Test
  public void aBufferSyncedInTheBackgroundWritesEveryByte() throws IOException {
    File file = tmp.newFile();
    ThreadPoolExecutor syncer = (ThreadPoolExecutor) Executors.newFixedThreadPool(1);
    long total = 3 * DataGen.Buffer.SYNC_EVERY + 12_345;
    try (DataGen.Buffer out = new DataGen.Buffer(file, syncer)) {
      long written = 0;
      while (written < total) {
        int room = (int) Math.min(DataGen.MAX_ROW, total - written);
        int at = out.reserve(room);
        for (int i = 0; i < room; i++) {
          out.bytes[at + i] = (byte) ((written + i) % 251);
        }
        out.used = at + room;
        written += room;
      }
      assertEquals(total, out.finish());
    } finally {
      syncer.shutdown();
    }
    assertTrue("synced while writing", syncer.getCompletedTaskCount() >= 1);
    byte[] bytes = Files.readAllBytes(file.toPath());
    assertEquals(total, bytes.length);
    for (int i = 0; i < bytes.length; i += 4099) {
      assertEquals((byte) (i % 251), bytes[i]);
    }
  }
}

package benchcamp.hivebench;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Generates Pavlo's HiveBench tables as '|'-delimited text: {@code rankings(pageURL, pageRank,
 * avgDuration)} and {@code uservisits(sourceIP, destURL, visitDate, adRevenue, userAgent,
 * countryCode, languageCode, searchWord, duration)}.
 *
 * <p>Page URLs are a function of the page index, so visits pick their destination by index
 * without holding the pages in memory (132 M pages / 1.1 G visits run in a small heap). Every
 * destURL is an existing page (skewed towards popular ones) so the join selects rows; visit
 * dates are uniform over 1995-2005 so the 1999 filter selects about a tenth; source IPs come
 * from a pool a tenth the size of the visits so the aggregation groups. The exact number of
 * distinct IPs and of 1999 visits is written to stats.json, so queries can be checked.
 *
 * <p>The generator has to keep up with the disk, or data generation would dominate a campaign.
 * So rows are encoded straight into a byte array: every field value comes from a small table
 * precomputed at start-up (IP octets, dates, URL parts, words; each with its delimiter) and is
 * stored as one to three 8-byte words (user agents are copied), whatever its length, the write
 * position then advancing by the real length (the next field overwrites the rest); numbers are
 * written as eight digits at once (SWAR), without a loop. The parts ({@code --files}, default
 * one per core) are written in parallel, and each part's file is synced to disk in the
 * background while it is being written, so the disk works while the cores generate. Each row
 * draws from its own random stream keyed by (seed, table, row), so the data is the same
 * whatever the number of files or cores.
 */
public final class DataGen {
  static final byte DELIMITER = '|';
  static final LocalDate FIRST_DAY = LocalDate.of(1995, 1, 1);
  static final LocalDate LAST_DAY = LocalDate.of(2005, 12, 31);
  static final LocalDate JOIN_FROM = LocalDate.of(1999, 1, 1);
  static final LocalDate JOIN_TO = LocalDate.of(2000, 1, 1);
  static final int MAX_PAGE_RANK = 10_000;

  static final String[] DOMAINS = {"alpha", "bravo", "cedar", "delta", "ember", "falcon",
      "garnet", "harbor", "indigo", "juniper", "kestrel", "lumen", "maple", "nectar", "onyx", "prairie",
      "quartz", "raven", "sierra", "tundra", "umber", "violet", "willow", "xenon", "yarrow", "zephyr"};
  static final String[] SECTIONS = {"news", "sports", "travel", "science", "music", "food",
      "finance", "health", "books", "movies", "games", "weather"};
  static final String[] USER_AGENTS = {
      "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/115.0",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0",
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 13_5) AppleWebKit/605.1.15 Safari/605.1",
      "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)",
      "Opera/9.80 (Windows NT 6.1; U; en) Presto/2.10.289 Version/12.02",
      "Lynx/2.8.9rel.1 libwww-FM/2.14 SSL-MM/1.4.1",
      "Wget/1.21.3",
      "Googlebot/2.1 (+http://www.google.com/bot.html)"};
  static final String[] COUNTRIES = {"USA", "DEU", "FRA", "GBR", "ESP", "ITA", "JPN", "CHN",
      "IND", "BRA", "CAN", "AUS", "MEX", "NLD", "SWE", "ROU"};
  static final String[] LANGUAGES = {"en-US", "de-DE", "fr-FR", "en-GB", "es-ES", "it-IT",
      "ja-JP", "zh-CN", "hi-IN", "pt-BR", "en-CA", "en-AU", "es-MX", "nl-NL", "sv-SE", "ro-RO"};
  static final String[] WORDS = {"benchmark", "hadoop", "cluster", "weather", "recipe",
      "football", "election", "guitar", "vacation", "mortgage", "telescope", "marathon", "origami",
      "volcano", "jazz", "pixel", "glacier", "lantern"};

  // Unaligned 8-byte stores into byte arrays, little-endian (a packed string's first byte
  // is the word's lowest); the JIT compiles each to one move. Measured against the alternatives:
  // a little-endian ByteBuffer view costs ~10 % more per row and more JIT time; setting the handle
  // up costs ~10 ms of start-up, which pays off from about 100 MB on.
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Upper bound of one row's bytes (about 230), with what a field's 8- or 24-byte store writes past its end. */
  static final int MAX_ROW = 320;

  /** "http://www." */
  private static final Wide URL_START = Wide.of("http://www.");
  /** Each domain, once per URL half. */
  private static final long[] DOMAIN = packAll(DOMAINS, "");
  /** ".com/<section>/page" for each section. */
  private static final Wide URL_SECTION;
  /** ".html|": every URL is followed by a delimiter (rankings' pageRank, uservisits' visitDate). */
  private static final long HTML = pack(".html|");
  /** An IP's first three octets with their '.', and the last with its '|'. */
  private static final long[] OCTET_DOT = new long[256];
  private static final long[] OCTET_BAR = new long[256];
  /** adRevenue's whole part with its '.' (0-999), and its cents with the '|' (00-99). */
  private static final long[] DOLLARS = new long[1000];
  private static final long[] CENTS = new long[100];
  /** 1-100 followed by the newline ending a row. */
  private static final long[] NUMBER_LINE = new long[101];
  private static final byte[][] USER_AGENT = new byte[USER_AGENTS.length][];
  private static final long[] COUNTRY = packAll(COUNTRIES, "|");
  private static final long[] LANGUAGE = packAll(LANGUAGES, "|");
  private static final Wide WORD;
  private static final long[] POWERS_OF_TEN = new long[19];

  static {
    String[] sections = new String[SECTIONS.length];
    for (int i = 0; i < sections.length; i++) {
      sections[i] = ".com/" + SECTIONS[i] + "/page";
    }
    URL_SECTION = Wide.of(sections);
    String[] words = new String[WORDS.length];
    for (int i = 0; i < words.length; i++) {
      words[i] = WORDS[i] + "|";
    }
    WORD = Wide.of(words);
    for (int i = 0; i < 256; i++) {
      OCTET_DOT[i] = pack(i + ".");
      OCTET_BAR[i] = pack(i + "|");
    }
    for (int i = 0; i < 1000; i++) {
      DOLLARS[i] = pack(i + ".");
    }
    for (int i = 0; i < 100; i++) {
      CENTS[i] = pack((char) ('0' + i / 10) + "" + (char) ('0' + i % 10) + "|");
    }
    for (int i = 0; i <= 100; i++) {
      NUMBER_LINE[i] = pack(i + "\n");
    }
    for (int i = 0; i < USER_AGENTS.length; i++) {
      USER_AGENT[i] = (USER_AGENTS[i] + "|").getBytes(StandardCharsets.US_ASCII);
    }
    long power = 1;
    for (int i = 0; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = power;
      power *= 10;
    }
  }

  private final long pages;
  private final long visits;
  private final long seed;
  private final int files;
  private final int days;
  /** "yyyy-mm-dd|" for each day of FIRST_DAY..LAST_DAY. */
  private final Wide dates;
  private final int joinFromDay;
  private final int joinToDay;

  DataGen(long pages, long visits, long seed, int files) {
    this.pages = pages;
    this.visits = visits;
    this.seed = seed;
    this.files = files;
    this.days = (int) (LAST_DAY.toEpochDay() - FIRST_DAY.toEpochDay()) + 1;
    this.dates = dateTable(days);
    this.joinFromDay = (int) (JOIN_FROM.toEpochDay() - FIRST_DAY.toEpochDay());
    this.joinToDay = (int) (JOIN_TO.toEpochDay() - FIRST_DAY.toEpochDay());
  }

  /**
   * "yyyy-mm-dd|" for {@code days} days from FIRST_DAY on. Digits are set by hand, a LocalDate
   * per month only: 4,000 LocalDate.toString calls cost ~30 ms of start-up.
   */
  static Wide dateTable(int days) {
    Wide table = new Wide(days);
    byte[] text = "yyyy-mm-dd|".getBytes(StandardCharsets.US_ASCII);
    int day = 0;
    for (LocalDate month = FIRST_DAY.withDayOfMonth(1); day < days; month = month.plusMonths(1)) {
      int year = month.getYear();
      text[0] = (byte) ('0' + year / 1000);
      text[1] = (byte) ('0' + year / 100 % 10);
      text[2] = (byte) ('0' + year / 10 % 10);
      text[3] = (byte) ('0' + year % 10);
      text[5] = (byte) ('0' + month.getMonthValue() / 10);
      text[6] = (byte) ('0' + month.getMonthValue() % 10);
      int first = day == 0 ? FIRST_DAY.getDayOfMonth() : 1;
      for (int dayOfMonth = first; dayOfMonth <= month.lengthOfMonth() && day < days; dayOfMonth++) {
        text[8] = (byte) ('0' + dayOfMonth / 10);
        text[9] = (byte) ('0' + dayOfMonth % 10);
        table.set(day++, text);
      }
    }
    return table;
  }

  /** Size of the source IP pool: a tenth of the visits, so addresses repeat. */
  long ipPool() {
    return Math.max(1, visits / 10);
  }

  /**
   * The URL of page {@code index} followed by '|', at {@code at}; returns the end. Unique, and
   * recomputable from the index alone: "http://www.&lt;d1&gt;&lt;d2&gt;.com/&lt;section&gt;/page&lt;index&gt;.html".
   */
  static int pageUrl(byte[] out, int at, long index) {
    int small = (int) (index & 0x3fffffffL); // pages stay far below 2^30: int arithmetic is cheaper
    int first = small % DOMAINS.length;
    int second = (small / DOMAINS.length) % DOMAINS.length;
    int section = (small / 7) % SECTIONS.length;
    int p = URL_START.put(out, at, 0);
    p = put(out, p, DOMAIN[first]);
    p = put(out, p, DOMAIN[second]);
    p = URL_SECTION.put(out, p, section);
    p = putDecimal(out, p, index);
    return put(out, p, HTML);
  }

  /**
   * Pool entry {@code poolIndex}'s IP followed by '|'; returns the end. A bijection of the
   * 32-bit space (odd multiplier), so distinct pool entries are distinct IPs.
   */
  static int ip(byte[] out, int at, long poolIndex, long seed) {
    long value = ((poolIndex + (seed & 0xffff)) * 2654435761L + 0x9e3779b9L) & 0xffffffffL;
    int p = put(out, at, OCTET_DOT[(int) ((value >>> 24) & 0xff)]);
    p = put(out, p, OCTET_DOT[(int) ((value >>> 16) & 0xff)]);
    p = put(out, p, OCTET_DOT[(int) ((value >>> 8) & 0xff)]);
    return put(out, p, OCTET_BAR[(int) (value & 0xff)]);
  }

  /**
   * {@code value} (at least 0) in decimal at {@code at}; returns the end. Below 10^8 (every
   * number but page indices past 100 M) without a loop or a branch on the digits: a digit loop's
   * varying trip count mispredicts on random numbers and cost more than the rest of a URL.
   */
  static int putDecimal(byte[] out, int at, long value) {
    if (value >= 100_000_000L) {
      int p = putDecimal(out, at, value / 100_000_000L);
      LONG.set(out, p, eightDigits(value % 100_000_000L));
      return p + 8;
    }
    int length = decimalLength(value);
    // The eight digits carry 8 - length leading zeros in their lowest bytes: shift them out.
    LONG.set(out, at, eightDigits(value) >>> (8 * (8 - length)));
    return at + length;
  }

  /**
   * The eight decimal digits of {@code value} (below 10^8, with leading zeros) as ASCII, the
   * first digit in the lowest byte. SWAR: the value is split into 4-digit halves in two 32-bit
   * lanes, each into 2-digit quarters in 16-bit lanes, each into digits in bytes, all lanes at
   * once; x * 10486 >>> 20 is x / 100 for x below 43,699 and x * 103 >>> 10 is x / 10 below 179.
   */
  static long eightDigits(long value) {
    long fours = value / 10_000 | (value % 10_000) << 32;
    long hundreds = (fours * 10486 >>> 20) & 0x0000007F_0000007FL;
    long twos = hundreds | (fours - 100 * hundreds) << 16;
    long tens = (twos * 103 >>> 10) & 0x000F000F_000F000FL;
    long digits = tens | (twos - 10 * tens) << 8;
    return digits + 0x30303030_30303030L;
  }

  /** Number of decimal digits of {@code value} (at least 0): log10 from the bit length, then one compare. */
  static int decimalLength(long value) {
    int bits = 64 - Long.numberOfLeadingZeros(value | 1);
    int guess = (bits * 1233) >>> 12; // 1233 / 4096 ~ log10(2): digits - 1 or digits
    return guess + ((value | 1) >= POWERS_OF_TEN[guess] ? 1 : 0); // 0 has one digit
  }

  /** Stores a packed string (see {@link #pack}) at {@code at}; returns its end. */
  private static int put(byte[] out, int at, long packed) {
    LONG.set(out, at, packed);
    return at + (int) (packed >>> 56);
  }

  /** Up to 7 ASCII bytes in a long's low bytes (first byte lowest) and their count in its top byte. */
  static long pack(String ascii) {
    if (ascii.length() > 7) {
      throw new IllegalArgumentException("too long to pack: " + ascii);
    }
    long packed = (long) ascii.length() << 56;
    for (int i = 0; i < ascii.length(); i++) {
      packed |= (long) (ascii.charAt(i) & 0x7f) << (8 * i);
    }
    return packed;
  }

  private static long[] packAll(String[] values, String suffix) {
    long[] packed = new long[values.length];
    for (int i = 0; i < values.length; i++) {
      packed[i] = pack(values[i] + suffix);
    }
    return packed;
  }

  /** Strings of up to 24 ASCII bytes, each stored as three 8-byte words. */
  static final class Wide {
    private final long[] words;
    private final byte[] lengths;

    Wide(int count) {
      this.words = new long[3 * count];
      this.lengths = new byte[count];
    }

    static Wide of(String... values) {
      Wide table = new Wide(values.length);
      for (int i = 0; i < values.length; i++) {
        table.set(i, values[i].getBytes(StandardCharsets.US_ASCII));
      }
      return table;
    }

    void set(int index, byte[] value) {
      if (value.length > 24) {
        throw new IllegalArgumentException("too long: " + new String(value, StandardCharsets.US_ASCII));
      }
      for (int word = 0; word < 3; word++) {
        words[3 * index + word] = 0;
      }
      for (int b = 0; b < value.length; b++) {
        words[3 * index + b / 8] |= (long) (value[b] & 0xff) << (8 * (b % 8));
      }
      lengths[index] = (byte) value.length;
    }

    /** Stores string {@code index} at {@code at} (24 bytes are written); returns its end. */
    int put(byte[] out, int at, int index) {
      int word = 3 * index;
      LONG.set(out, at, words[word]);
      LONG.set(out, at + 8, words[word + 1]);
      LONG.set(out, at + 16, words[word + 2]);
      return at + lengths[index];
    }
  }

  Stats run(File outDir) throws IOException {
    File rankingsDir = new File(outDir, "rankings");
    File visitsDir = new File(outDir, "uservisits");
    for (File dir : new File[] {rankingsDir, visitsDir}) {
      if (dir.isDirectory() && dir.list().length > 0) {
        throw new IllegalArgumentException(dir + " already contains files: use an empty --out directory");
      }
      if (!dir.isDirectory() && !dir.mkdirs()) {
        throw new IOException("cannot create " + dir);
      }
    }
    long started = System.nanoTime();
    int threads = Math.max(1, Math.min(files, Runtime.getRuntime().availableProcessors()));
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    // Syncs the files while they are written (see Buffer): mostly waits for the disk.
    ExecutorService syncer = Executors.newSingleThreadExecutor();
    List<Future<long[]>> rankingParts = new ArrayList<>();
    List<Future<long[]>> visitParts = new ArrayList<>();
    BitSet[] usedIps = new BitSet[files];
    // uservisits first: they are most of the bytes, so with one part per thread the threads end together.
    for (int part = 0; part < files; part++) {
      usedIps[part] = new BitSet();
      Buffer out = new Buffer(new File(visitsDir, partName(part)), syncer);
      visitParts.add(pool.submit(new VisitPart(out, first(visits, part), last(visits, part), usedIps[part])));
    }
    for (int part = 0; part < files; part++) {
      Buffer out = new Buffer(new File(rankingsDir, partName(part)), syncer);
      rankingParts.add(pool.submit(new RankingPart(out, first(pages, part), last(pages, part))));
    }
    Stats stats = new Stats();
    try {
      for (Future<long[]> part : rankingParts) {
        stats.rankingsBytes += part.get()[0];
      }
      for (Future<long[]> part : visitParts) {
        long[] result = part.get();
        stats.uservisitsBytes += result[0];
        stats.visits1999to2000 += result[1];
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new IOException("generating failed: " + e.getCause(), e);
    } finally {
      pool.shutdownNow();
      syncer.shutdownNow();
    }
    BitSet all = new BitSet();
    for (BitSet used : usedIps) {
      all.or(used);
    }
    stats.distinctSourceIps = all.cardinality();
    stats.elapsedS = (System.nanoTime() - started) / 1e9;
    return stats;
  }

  /** The first of {@code total} rows in part {@code part}: the parts are equal, the last may be short or empty. */
  long first(long total, int part) {
    return Math.min(total, part * ((total + files - 1) / files));
  }

  /** One past the last row of part {@code part}. */
  long last(long total, int part) {
    return Math.min(total, first(total, part) + (total + files - 1) / files);
  }

  /**
   * Part {@code part} of rankings into {@code out} (a map's file of {@link DataGenJob}), the same
   * bytes {@link #run} writes into that part's file; returns the bytes written. Closes {@code out}.
   */
  long writeRankings(int part, OutputStream out) throws IOException {
    return new RankingPart(new Buffer(out), first(pages, part), last(pages, part)).call()[0];
  }

  /**
   * Part {@code part} of uservisits into {@code out}, as {@link #writeRankings}; the pool entries
   * it used are set in {@code usedIps}. Returns {bytes, visits in the join's range}. Closes {@code out}.
   */
  long[] writeVisits(int part, OutputStream out, BitSet usedIps) throws IOException {
    return new VisitPart(new Buffer(out), first(visits, part), last(visits, part), usedIps).call();
  }

  /** SplitMix64 restarted per row from (seed, table, row): any row can be generated alone. */
  static final class RowRandom {
    private long state;

    void startRow(long seed, long table, long row) {
      state = mix(seed * 0x9E3779B97F4A7C15L ^ table * 0xBF58476D1CE4E5B9L ^ row * 0x94D049BB133111EBL);
    }

    private static long mix(long z) {
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }

    long nextLong() {
      state += 0x9E3779B97F4A7C15L;
      return mix(state);
    }

    /** Uniform in [0, bound) for bound below 2^31 (the IP pool is capped there). */
    long nextLong(long bound) {
      return ((nextLong() >>> 33) * bound) >>> 31;
    }

    int nextInt(int bound) {
      return (int) (((nextLong() >>> 32) * bound) >>> 32);
    }

    double nextDouble() {
      return (nextLong() >>> 11) * 0x1.0p-53;
    }
  }

  // The parts are classes, not lambdas: a lambda's first use costs ~20 ms of start-up.

  /** Rows [first, last) of rankings into one file; returns {bytes}. */
  final class RankingPart implements Callable<long[]> {
    private final Buffer buffer;
    private final long first;
    private final long last;
    private final RowRandom random = new RowRandom();

    RankingPart(Buffer buffer, long first, long last) {
      this.buffer = buffer;
      this.first = first;
      this.last = last;
    }

    @Override
    public long[] call() throws IOException {
      try (Buffer out = buffer) {
        for (long page = first; page < last; page++) {
          out.used = row(out.bytes, out.reserve(MAX_ROW), page);
        }
        return new long[] {out.finish()};
      }
    }

    /** Encodes the row at {@code at}; returns its end. */
    int row(byte[] b, int at, long page) {
      random.startRow(seed, 1, page);
      int p = pageUrl(b, at, page);
      double u = random.nextDouble();
      p = putDecimal(b, p, 1 + (long) (MAX_PAGE_RANK * u * u * u)); // power law: most pages rank low
      b[p++] = DELIMITER;
      return put(b, p, NUMBER_LINE[1 + random.nextInt(100)]);
    }
  }

  /** Rows [first, last) of uservisits into one file; returns {bytes, visits in the join's range}. */
  final class VisitPart implements Callable<long[]> {
    private final Buffer buffer;
    private final long first;
    private final long last;
    private final BitSet usedIps;
    private final RowRandom random = new RowRandom();
    private final long pool = ipPool();
    private long joinVisits;

    VisitPart(Buffer buffer, long first, long last, BitSet usedIps) {
      this.buffer = buffer;
      this.first = first;
      this.last = last;
      this.usedIps = usedIps;
    }

    @Override
    public long[] call() throws IOException {
      try (Buffer out = buffer) {
        for (long visit = first; visit < last; visit++) {
          out.used = row(out.bytes, out.reserve(MAX_ROW), visit);
        }
        return new long[] {out.finish(), joinVisits};
      }
    }

    /** Encodes the row at {@code at}; returns its end. The draws come in this order for every row. */
    int row(byte[] b, int at, long visit) {
      random.startRow(seed, 2, visit);
      long ipIndex = random.nextLong(pool);
      usedIps.set((int) ipIndex);
      int p = ip(b, at, ipIndex, seed);
      double u = random.nextDouble();
      // Popular pages visited more. pages * u * u may round up to pages: clamp to the last page,
      // without a branch (Math.min's rare branch deoptimizes the compiled row once it is taken).
      long page = (long) (pages * u * u);
      p = pageUrl(b, p, page - ((pages - 1 - page) >>> 63));
      int day = random.nextInt(days);
      if (day >= joinFromDay && day <= joinToDay) {
        joinVisits++;
      }
      p = dates.put(b, p, day);
      int cents = random.nextInt(100_000);
      p = put(b, p, DOLLARS[cents / 100]);
      p = put(b, p, CENTS[cents % 100]);
      byte[] agent = USER_AGENT[random.nextInt(USER_AGENTS.length)];
      System.arraycopy(agent, 0, b, p, agent.length);
      p += agent.length;
      int country = random.nextInt(COUNTRIES.length);
      p = put(b, p, COUNTRY[country]);
      p = put(b, p, LANGUAGE[random.nextInt(4) == 0 ? random.nextInt(LANGUAGES.length) : country]);
      p = WORD.put(b, p, random.nextInt(WORDS.length));
      return put(b, p, NUMBER_LINE[1 + random.nextInt(100)]);
    }
  }

  /** "part-00000", ... (not String.format: its locale machinery alone costs ~50 ms of start-up). */
  static String partName(int part) {
    String number = Integer.toString(part);
    return "part-" + "00000".substring(Math.min(5, number.length())) + number;
  }

  /** What was written; the campaign checks query results against it. */
  static final class Stats {
    long rankingsBytes;
    long uservisitsBytes;
    long distinctSourceIps;
    long visits1999to2000;
    double elapsedS;

    /** One line of JSON; built by hand for the same reason as {@link #partName}. */
    String toJson(DataGen gen) {
      double megabytes = (rankingsBytes + uservisitsBytes) / 1e6;
      return "{\"pages\": " + gen.pages + ", \"uservisits\": " + gen.visits + ", \"seed\": " + gen.seed
          + ", \"files\": " + gen.files + ", \"rankings_bytes\": " + rankingsBytes
          + ", \"uservisits_bytes\": " + uservisitsBytes + ", \"distinct_source_ips\": " + distinctSourceIps
          + ", \"visits_1999_2000\": " + visits1999to2000 + ", \"elapsed_s\": " + fixed(elapsedS, 3)
          + ", \"mb_per_s\": " + fixed(elapsedS > 0 ? megabytes / elapsedS : 0.0, 1) + "}"
          + System.lineSeparator();
    }

    /** {@code value} with {@code decimals} digits after the point, rounded half up: what %.Nf prints. */
    static String fixed(double value, int decimals) {
      return BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP).toPlainString();
    }
  }

  /**
   * A 1 MiB byte buffer over one file, synced to disk before {@link #finish} returns so timings
   * include the disk. Rows are encoded into {@link #bytes} from {@link #used} on, after {@link
   * #reserve} made room for a whole row (the array has MAX_ROW bytes of slack beyond the 1 MiB, so
   * the stores that run past a field's end stay inside it). Written through a FileChannel: its
   * cached direct buffer avoids the per-write native allocation (and page faults) of
   * FileOutputStream.write on large arrays.
   *
   * <p>Every SYNC_EVERY bytes the syncer thread is asked to sync what was written so far, so the
   * disk writes while the part is still being generated and the final sync has little left to do
   * (a single sync at the end would leave the disk idle while generating and the cores idle
   * while syncing).
   */
  static final class Buffer implements AutoCloseable {
    static final int CAPACITY = 1 << 20;
    static final long SYNC_EVERY = 32L << 20;
    private final OutputStream stream;
    /** The local file's channel (written through, synced); null over another stream. */
    private final FileChannel channel;
    private final ExecutorService syncer;
    final byte[] bytes = new byte[CAPACITY + MAX_ROW];
    int used;
    private long flushed;
    private long syncedUpTo;
    private Future<Void> pendingSync;

    /** {@code syncer} may be null: then the file is synced only by {@link #finish}. */
    Buffer(File file, ExecutorService syncer) throws IOException {
      FileOutputStream local = new FileOutputStream(file);
      this.stream = local;
      this.channel = local.getChannel();
      this.syncer = syncer;
    }

    /**
     * Over another stream (an HDFS file of a map): written with {@code write}, never synced here;
     * the stream's own close makes it durable.
     */
    Buffer(OutputStream stream) {
      this.stream = stream;
      this.channel = null;
      this.syncer = null;
    }

    /** Makes room for {@code room} bytes (at most MAX_ROW), writing out the buffer if needed; returns {@link #used}. */
    int reserve(int room) throws IOException {
      if (used + room > CAPACITY) {
        flush();
      }
      return used;
    }

    /** Writes out the rest and syncs the file to disk; returns the bytes written. */
    long finish() throws IOException {
      flush();
      awaitSync();
      if (channel != null) {
        channel.force(true);
      }
      return flushed;
    }

    private void flush() throws IOException {
      if (channel == null) {
        stream.write(bytes, 0, used);
      } else {
        ByteBuffer pending = ByteBuffer.wrap(bytes, 0, used);
        while (pending.hasRemaining()) {
          channel.write(pending);
        }
      }
      flushed += used;
      used = 0;
      if (syncer != null && channel != null && flushed - syncedUpTo >= SYNC_EVERY && (pendingSync == null || pendingSync.isDone())) {
        awaitSync(); // done: only reports its failure
        syncedUpTo = flushed;
        pendingSync = syncer.submit(new Sync(channel));
      }
    }

    private void awaitSync() throws IOException {
      if (pendingSync == null) {
        return;
      }
      try {
        pendingSync.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while syncing", e);
      } catch (ExecutionException e) {
        throw new IOException("syncing failed: " + e.getCause(), e.getCause());
      } finally {
        pendingSync = null;
      }
    }

    @Override
    public void close() throws IOException {
      try {
        awaitSync(); // never close the channel under a running sync
      } finally {
        stream.close();
      }
    }
  }

  /** fdatasync of one file, on the syncer thread. */
  private static final class Sync implements Callable<Void> {
    private final FileChannel channel;

    Sync(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public Void call() throws IOException {
      channel.force(false);
      return null;
    }
  }

  static int usage(String problem) {
    System.err.println("error: " + problem);
    System.err.println(
        "usage: java -jar hivebench-datagen.jar --pages N --uservisits M --out DIR [--seed S] [--files K]\n"
            + "   or: hadoop jar hivebench-datagen.jar job --pages N --uservisits M --files K --out DIR [--seed S] [--stats LOCAL_FILE]");
    return 2;
  }

  /**
   * The command line of both entry points (this class and {@link DataGenJob}): {@code --pages},
   * {@code --uservisits}, {@code --seed}, {@code --files}, {@code --out} and, where allowed,
   * {@code --stats}. {@link #problem} says why it is refused, or is null.
   */
  static final class Args {
    long pages = -1;
    long visits = -1;
    long seed = 1;
    int files;
    String out;
    String stats;
    String problem;

    /** {@code files}: the default number of parts (-1: none, the option is required). */
    static Args parse(String[] args, int files, boolean statsAllowed, String filesProblem) {
      Args parsed = new Args();
      parsed.files = files;
      parsed.problem = parsed.read(args, statsAllowed);
      if (parsed.problem == null) {
        parsed.problem = parsed.check(filesProblem);
      }
      return parsed;
    }

    private String read(String[] args, boolean statsAllowed) {
      for (int i = 0; i < args.length; i++) {
        String name = args[i];
        if (i + 1 >= args.length) {
          return name + " needs a value";
        }
        String value = args[++i];
        try {
          switch (name) {
            case "--pages" -> pages = Long.parseLong(value);
            case "--uservisits" -> visits = Long.parseLong(value);
            case "--seed" -> seed = Long.parseLong(value);
            case "--files" -> files = Integer.parseInt(value);
            case "--out" -> out = value;
            case "--stats" -> {
              if (!statsAllowed) {
                return "unknown argument " + name;
              }
              stats = value;
            }
            default -> {
              return "unknown argument " + name;
            }
          }
        } catch (NumberFormatException e) {
          return name + " must be an integer, got '" + value + "'";
        }
      }
      return null;
    }

    private String check(String filesProblem) {
      if (pages < 1 || visits < 1) {
        return "--pages and --uservisits must be at least 1";
      }
      if (visits / 10 > Integer.MAX_VALUE) {
        return "--uservisits above " + (Integer.MAX_VALUE * 10L) + " is not supported";
      }
      if (files < 1) {
        return filesProblem;
      }
      if (out == null) {
        return "--out DIR is required";
      }
      return null;
    }
  }

  static int main0(String[] arguments) throws IOException {
    Args args = Args.parse(arguments, Runtime.getRuntime().availableProcessors(), false, "--files must be at least 1");
    if (args.problem != null) {
      return usage(args.problem);
    }
    DataGen gen = new DataGen(args.pages, args.visits, args.seed, args.files);
    Stats stats;
    try {
      stats = gen.run(new File(args.out));
    } catch (IllegalArgumentException e) {
      return usage(e.getMessage());
    }
    String json = stats.toJson(gen);
    try (FileOutputStream stream = new FileOutputStream(new File(args.out, "stats.json"))) {
      stream.write(json.getBytes(StandardCharsets.US_ASCII));
    }
    System.out.print(json);
    return 0;
  }

  /**
   * {@code job ARGS} runs {@link DataGenJob} (the jar's manifest names this class, so {@code hadoop
   * jar} passes the job's name as the first argument); anything else generates here. The job is
   * looked up by name: this class must load without Hadoop on the class path.
   */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("job")) {
      String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
      try {
        Class.forName("benchcamp.hivebench.DataGenJob").getMethod("main", String[].class).invoke(null, (Object) rest);
      } catch (ClassNotFoundException | NoClassDefFoundError e) {
        System.err.println("error: the job needs Hadoop's classes: run it with `hadoop jar` (" + e + ")");
        System.exit(2);
      } catch (java.lang.reflect.InvocationTargetException e) {
        throw e.getCause() instanceof Exception cause ? cause : e;
      }
      return;
    }
    System.exit(main0(args));
  }
}

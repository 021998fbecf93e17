package benchcamp.bigbench.text;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The study's word lists (positive, negative, negations, competitors), packed into the jar from
 * include/benchcamp/studies/bigbench_containers/words/ so the UDFs and the data generator share
 * one copy. Format: one entry per line, blank lines and lines starting with '#' skipped.
 *
 * <p>All lists are read once, when the class is initialised: HiveServer2 closes a session's
 * class loader (ADD JAR) when the session ends, and a task of a later session still using this
 * class then finds no resource in the jar (seen on the lab: a text query failed with "word list
 * ... is not in the jar" in one of two runs, while the sentence model, kept in a static field,
 * was found).
 */
public final class WordLists {
  static final String RESOURCE_DIR = "/benchcamp/bigbench/words/";
  static final List<String> NAMES = List.of("positive", "negative", "negations", "competitors");
  private static final Map<String, List<String>> LISTS = readAll();

  private WordLists() {}

  /** The list `name` (e.g. "positive") read from the jar; fails loudly for an unknown name. */
  public static List<String> resource(String name) {
    List<String> entries = LISTS.get(name);
    if (entries == null) {
      throw new IllegalArgumentException("no word list " + name + " (known: " + NAMES + ")");
    }
    return entries;
  }

  private static Map<String, List<String>> readAll() {
    Map<String, List<String>> lists = new HashMap<>();
    for (String name : NAMES) {
      lists.put(name, List.copyOf(readResource(name)));
    }
    return Map.copyOf(lists);
  }

  private static List<String> readResource(String name) {
    String path = RESOURCE_DIR + name + ".txt";
    try (InputStream in = WordLists.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("word list " + path + " is not in the jar");
      }
      return read(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read word list " + path, e);
    }
  }

  /** Entries of a list in file order, trimmed. */
  public static List<String> read(InputStream in) throws IOException {
    List<String> entries = new ArrayList<>();
    BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
      String entry = line.trim();
      if (!entry.isEmpty() && !entry.startsWith("#")) {
        entries.add(entry);
      }
    }
    return entries;
  }
}

package benchcamp.bigbench.text;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The study's word lists (positive, negative, negations, competitors), packed into the jar from
 * include/benchcamp/studies/bigbench_containers/words/ so the UDFs and the data generator share
 * one copy. Format: one entry per line, blank lines and lines starting with '#' skipped.
 */
public final class WordLists {
  static final String RESOURCE_DIR = "/benchcamp/bigbench/words/";

  private WordLists() {}

  /** The list `name` (e.g. "positive") from the jar; fails loudly when the jar lacks it. */
  public static List<String> resource(String name) {
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

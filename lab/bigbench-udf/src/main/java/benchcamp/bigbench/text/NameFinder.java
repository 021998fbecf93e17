package benchcamp.bigbench.text;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Names (competitors, stores) found in a sentence as whole tokens, case-insensitively: a name
 * matches where its lower-cased SimpleTokenizer tokens occur in a row among the sentence's, so
 * "Granite Bay" matches "granite bay's" but "Ironleaf" does not match "Ironleafy".
 */
public final class NameFinder {
  private final List<String> names;
  private final List<String[]> nameTokens;

  public NameFinder(Collection<String> names) {
    this.names = new ArrayList<>();
    this.nameTokens = new ArrayList<>();
    for (String name : names) {
      String[] tokens = Sentences.tokens(name.trim());
      if (tokens.length > 0) {
        this.names.add(name.trim());
        this.nameTokens.add(tokens);
      }
    }
  }

  /** The competitor list in the jar (competitors.txt, the generator's imp_competitor values). */
  public static NameFinder competitors() {
    return new NameFinder(WordLists.resource("competitors"));
  }

  /** Each name occurring in `tokens` (lower-cased), once, in the order of its first occurrence. */
  public List<String> find(String[] tokens) {
    List<int[]> found = new ArrayList<>(); // {first position, name index}
    for (int n = 0; n < nameTokens.size(); n++) {
      int at = indexOf(tokens, nameTokens.get(n));
      if (at >= 0) {
        found.add(new int[] {at, n});
      }
    }
    found.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
    List<String> result = new ArrayList<>();
    for (int[] hit : found) {
      result.add(names.get(hit[1]));
    }
    return result;
  }

  /** Whether `name` occurs in `text` as whole tokens, case-insensitively. */
  public static boolean mentions(String text, String name) {
    String[] needle = Sentences.tokens(name.trim());
    return needle.length > 0 && indexOf(Sentences.tokens(text), needle) >= 0;
  }

  static int indexOf(String[] haystack, String[] needle) {
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
        return i;
      }
    }
    return -1;
  }
}

package benchcamp.bigbench.text;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Lexicon sentiment of one sentence's tokens (lower-cased SimpleTokenizer tokens): every token in
 * the positive or negative list is a hit; a negation up to {@link #NEGATION_WINDOW} tokens before
 * it, with no clause break between, flips its polarity. The sentence's polarity is the sign of
 * the hits' sum (+1 positive, -1 negative): POS, NEG, or NEU for none or a tie.
 */
public final class Sentiment {
  public static final int NEGATION_WINDOW = 3;
  public static final String POSITIVE = "POS";
  public static final String NEGATIVE = "NEG";
  public static final String NEUTRAL = "NEU";
  /** Tokens that end a clause: a negation before them does not reach past them. */
  static final Set<String> CLAUSE_BREAKS = Set.of(",", ";", ":", ".", "!", "?", "but", "however");

  /** One sentiment word in a sentence, with its polarity after negation. */
  public record Hit(int tokenIndex, String word, String polarity, boolean negated) {}

  private final Set<String> positive;
  private final Set<String> negative;
  private final Set<String> negations;

  public Sentiment(Collection<String> positive, Collection<String> negative, Collection<String> negations) {
    this.positive = lowerCased(positive);
    this.negative = lowerCased(negative);
    this.negations = lowerCased(negations);
    Set<String> both = new HashSet<>(this.positive);
    both.retainAll(this.negative);
    if (!both.isEmpty()) {
      throw new IllegalArgumentException("words in both the positive and the negative list: " + both);
    }
  }

  /** The lexicon of the jar's word lists (positive.txt, negative.txt, negations.txt). */
  public static Sentiment fromWordLists() {
    return new Sentiment(
        WordLists.resource("positive"), WordLists.resource("negative"), WordLists.resource("negations"));
  }

  /** The sentiment words of `tokens`, in order. */
  public List<Hit> hits(String[] tokens) {
    List<Hit> hits = new ArrayList<>();
    for (int i = 0; i < tokens.length; i++) {
      boolean isPositive = positive.contains(tokens[i]);
      if (!isPositive && !negative.contains(tokens[i])) {
        continue;
      }
      boolean negated = negatedAt(tokens, i);
      String polarity = isPositive != negated ? POSITIVE : NEGATIVE;
      hits.add(new Hit(i, tokens[i], polarity, negated));
    }
    return hits;
  }

  /** POS, NEG or NEU: the sign of the hits' sum. */
  public static String polarity(List<Hit> hits) {
    int score = score(hits);
    return score > 0 ? POSITIVE : score < 0 ? NEGATIVE : NEUTRAL;
  }

  /** +1 per positive hit, -1 per negative one. */
  public static int score(List<Hit> hits) {
    int score = 0;
    for (Hit hit : hits) {
      score += POSITIVE.equals(hit.polarity()) ? 1 : -1;
    }
    return score;
  }

  private boolean negatedAt(String[] tokens, int index) {
    for (int j = index - 1; j >= Math.max(0, index - NEGATION_WINDOW); j--) {
      if (CLAUSE_BREAKS.contains(tokens[j])) {
        return false;
      }
      if (negations.contains(tokens[j]) || isContractedNot(tokens, j)) {
        return true;
      }
    }
    return false;
  }

  /** "t" after an apostrophe after a word ending in "n": the tokens of "isn't", "don't", "can't". */
  static boolean isContractedNot(String[] tokens, int index) {
    return tokens[index].equals("t")
        && index >= 2
        && (tokens[index - 1].equals("'") || tokens[index - 1].equals("\u2019"))
        && tokens[index - 2].endsWith("n");
  }

  private static Set<String> lowerCased(Collection<String> words) {
    Set<String> set = new HashSet<>();
    for (String word : words) {
      set.add(word.toLowerCase(Locale.ROOT));
    }
    return set;
  }
}

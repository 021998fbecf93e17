package benchcamp.bigbench.text;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.Test;

public class TextLogicTest {
  private static final Sentiment LEXICON =
      new Sentiment(List.of("great", "Sturdy"), List.of("flimsy", "awful"), List.of("not", "never"));

  private static List<String> polarities(String sentence) {
    return LEXICON.hits(Sentences.tokens(sentence)).stream().map(Sentiment.Hit::polarity).toList();
  }

  @Test
  public void wordListsSkipCommentsAndBlankLines() throws Exception {
    String text = "# a comment\n\n great \nawful\n# another\n";
    List<String> entries = WordLists.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    assertEquals(List.of("great", "awful"), entries);
  }

  @Test
  public void theJarCarriesTheStudyWordLists() {
    assertTrue(WordLists.resource("positive").contains("excellent"));
    assertTrue(WordLists.resource("negative").contains("flimsy"));
    assertTrue(WordLists.resource("negations").contains("not"));
    assertTrue(WordLists.resource("competitors").contains("Dunmore Goods"));
  }

  @Test
  public void tokensFollowSimpleTokenizerAndAreLowerCased() {
    assertArrayEquals(
        new String[] {"it", "isn", "'", "t", "great", ",", "5", "stars", "!!", "?"},
        Sentences.tokens("It isn't GREAT, 5stars!!?"));
  }

  @Test
  public void sentimentWordsKeepTheirPolarityWithoutNegation() {
    assertEquals(List.of("POS", "NEG"), polarities("A sturdy case but a flimsy lid."));
  }

  @Test
  public void negationWithinThreeTokensFlipsPolarity() {
    assertEquals(List.of("NEG"), polarities("It is not very great."));
    assertEquals(List.of("POS"), polarities("Never once flimsy."));
    assertEquals(List.of("NEG"), polarities("It isn't great."));
    assertEquals(List.of("NEG"), polarities("It won't be great."));
  }

  @Test
  public void negationDoesNotReachPastAClauseBreakOrTheWindow() {
    assertEquals(List.of("POS"), polarities("Not cheap, but great."));
    assertEquals(List.of("POS"), polarities("Not that it was really great."));
    List<Sentiment.Hit> hits = LEXICON.hits(Sentences.tokens("Not awful"));
    assertTrue(hits.get(0).negated());
    assertEquals("awful", hits.get(0).word());
  }

  @Test
  public void sentencePolarityIsTheSignOfTheSum() {
    assertEquals("POS", Sentiment.polarity(LEXICON.hits(Sentences.tokens("Great and sturdy, a bit flimsy."))));
    assertEquals("NEG", Sentiment.polarity(LEXICON.hits(Sentences.tokens("Not great."))));
    assertEquals("NEU", Sentiment.polarity(LEXICON.hits(Sentences.tokens("Great but flimsy."))));
    assertEquals("NEU", Sentiment.polarity(LEXICON.hits(Sentences.tokens("It came in a box."))));
    assertEquals(-2, Sentiment.score(LEXICON.hits(Sentences.tokens("Flimsy and awful."))));
  }

  @Test(expected = IllegalArgumentException.class)
  public void aWordInBothListsIsRefused() {
    new Sentiment(List.of("fine"), List.of("Fine"), List.of());
  }

  @Test
  public void theModelSplitsReviewSentences() {
    Sentences sentences = new Sentences();
    assertEquals(
        List.of("This gadget is flimsy.", "I saw the same tool cheaper at Dunmore Goods.", "Overall, great kit."),
        sentences.split("This gadget is flimsy. I saw the same tool cheaper at Dunmore Goods. Overall, great kit."));
    assertEquals(List.of(), sentences.split("   "));
  }

  @Test
  public void namesMatchWholeTokensInOrderOfFirstOccurrence() {
    NameFinder finder = new NameFinder(List.of("Ironleaf", "Granite Bay", "Alderway"));
    assertEquals(
        List.of("Granite Bay", "Ironleaf"),
        finder.find(Sentences.tokens("granite bay's price beats IRONLEAF and Ironleaf again")));
    assertEquals(List.of(), finder.find(Sentences.tokens("Ironleafy granite and bay")));
  }

  @Test
  public void mentionsIsAWholeWordCaseInsensitiveTest() {
    assertTrue(NameFinder.mentions("I went back to the maple court store.", "Maple Court"));
    assertFalse(NameFinder.mentions("Oakridgeway mall", "Oakridge"));
    assertFalse(NameFinder.mentions("anything", "  "));
  }

  @Test
  public void theDefaultCompetitorsAreTheStudyList() {
    assertEquals(List.of("Harborview"), NameFinder.competitors().find(Sentences.tokens("Harborview sells a similar set.")));
  }
}

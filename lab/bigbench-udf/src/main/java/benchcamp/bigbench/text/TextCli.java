package benchcamp.bigbench.text;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The UDFs' logic without Hive, for checking it against text_reference.py: reads `key<TAB>text`
 * lines on standard input and writes the rows the Hive functions would give, tab-separated, each
 * led by the key. `java -cp bigbench-udf.jar benchcamp.bigbench.text.TextCli MODE`, MODE one of
 * sentiment-words (bb_sentiment_words), sentences (bb_sentences), competitors (bb_name_mentions
 * with the jar's competitor list).
 */
public final class TextCli {
  private TextCli() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1 || !List.of("sentiment-words", "sentences", "competitors").contains(args[0])) {
      System.err.println("usage: TextCli sentiment-words|sentences|competitors < key<TAB>text lines");
      System.exit(2);
    }
    Sentences sentences = new Sentences();
    Sentiment sentiment = Sentiment.fromWordLists();
    NameFinder competitors = NameFinder.competitors();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      int tab = line.indexOf('\t');
      if (tab < 0) {
        continue;
      }
      String key = line.substring(0, tab);
      List<String> split = sentences.split(line.substring(tab + 1));
      for (int s = 0; s < split.size(); s++) {
        String sentence = split.get(s);
        String prefix = key + "\t" + (s + 1) + "\t" + sentence + "\t";
        String[] tokens = Sentences.tokens(sentence);
        switch (args[0]) {
          case "sentiment-words" -> {
            for (Sentiment.Hit hit : sentiment.hits(tokens)) {
              out.write(prefix + hit.polarity() + "\t" + hit.word() + "\t" + hit.negated() + "\n");
            }
          }
          case "sentences" -> {
            List<Sentiment.Hit> hits = sentiment.hits(tokens);
            out.write(prefix + Sentiment.polarity(hits) + "\t" + Sentiment.score(hits) + "\n");
          }
          default -> {
            for (String name : competitors.find(tokens)) {
              out.write(prefix + name + "\n");
            }
          }
        }
      }
    }
    out.flush();
  }
}

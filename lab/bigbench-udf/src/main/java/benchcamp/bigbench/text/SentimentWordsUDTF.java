package benchcamp.bigbench.text;

import java.util.List;
import org.apache.hadoop.hive.ql.exec.Description;
import org.apache.hadoop.hive.ql.metadata.HiveException;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorFactory;

/** q10's function: one row per sentiment word of each sentence of a review. */
@Description(
    name = "bb_sentiment_words",
    value = "_FUNC_(text) - rows (sentence_no, sentence, polarity, sentiment_word, negated): one per"
        + " word of the positive/negative lists in each sentence; polarity POS or NEG after negation")
public final class SentimentWordsUDTF extends TextUDTF {
  private Sentences sentences;
  private Sentiment sentiment;

  @Override
  protected String name() {
    return "bb_sentiment_words";
  }

  @Override
  protected List<String> columnNames() {
    return List.of("sentence_no", "sentence", "polarity", "sentiment_word", "negated");
  }

  @Override
  protected List<ObjectInspector> columnInspectors() {
    return List.of(
        PrimitiveObjectInspectorFactory.javaIntObjectInspector,
        PrimitiveObjectInspectorFactory.javaStringObjectInspector,
        PrimitiveObjectInspectorFactory.javaStringObjectInspector,
        PrimitiveObjectInspectorFactory.javaStringObjectInspector,
        PrimitiveObjectInspectorFactory.javaBooleanObjectInspector);
  }

  @Override
  protected void processText(String text, Object[] args) throws HiveException {
    if (sentences == null) {
      sentences = new Sentences();
      sentiment = Sentiment.fromWordLists();
    }
    List<String> split = sentences.split(text);
    for (int s = 0; s < split.size(); s++) {
      for (Sentiment.Hit hit : sentiment.hits(Sentences.tokens(split.get(s)))) {
        forward(new Object[] {s + 1, split.get(s), hit.polarity(), hit.word(), hit.negated()});
      }
    }
  }
}

package benchcamp.bigbench.text;

import java.util.List;
import org.apache.hadoop.hive.ql.exec.Description;
import org.apache.hadoop.hive.ql.metadata.HiveException;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorFactory;

/** q18's and q19's function: every sentence of a review with its overall polarity. */
@Description(
    name = "bb_sentences",
    value = "_FUNC_(text) - rows (sentence_no, sentence, polarity, score): each sentence, its score"
        + " (+1 per positive word, -1 per negative one, after negation) and POS, NEG or NEU by its sign")
public final class SentencesUDTF extends TextUDTF {
  private Sentences sentences;
  private Sentiment sentiment;

  @Override
  protected String name() {
    return "bb_sentences";
  }

  @Override
  protected List<String> columnNames() {
    return List.of("sentence_no", "sentence", "polarity", "score");
  }

  @Override
  protected List<ObjectInspector> columnInspectors() {
    return List.of(
        PrimitiveObjectInspectorFactory.javaIntObjectInspector,
        PrimitiveObjectInspectorFactory.javaStringObjectInspector,
        PrimitiveObjectInspectorFactory.javaStringObjectInspector,
        PrimitiveObjectInspectorFactory.javaIntObjectInspector);
  }

  @Override
  protected void processText(String text, Object[] args) throws HiveException {
    if (sentences == null) {
      sentences = new Sentences();
      sentiment = Sentiment.fromWordLists();
    }
    List<String> split = sentences.split(text);
    for (int s = 0; s < split.size(); s++) {
      List<Sentiment.Hit> hits = sentiment.hits(Sentences.tokens(split.get(s)));
      forward(new Object[] {s + 1, split.get(s), Sentiment.polarity(hits), Sentiment.score(hits)});
    }
  }
}

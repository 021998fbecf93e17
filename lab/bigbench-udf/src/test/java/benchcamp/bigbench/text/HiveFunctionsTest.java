package benchcamp.bigbench.text;

import static org.junit.Assert.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDF;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDTF;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspectorFactory;
import org.apache.hadoop.hive.serde2.objectinspector.StructObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorFactory;
import org.junit.Test;

/** The Hive wrappers: argument checks, output columns and forwarded rows (Hive's own object inspectors). */
public class HiveFunctionsTest {
  private static final ObjectInspector STRING = PrimitiveObjectInspectorFactory.javaStringObjectInspector;

  private static StructObjectInspector arguments(ObjectInspector... inspectors) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < inspectors.length; i++) {
      names.add("a" + i);
    }
    return ObjectInspectorFactory.getStandardStructObjectInspector(names, List.of(inspectors));
  }

  private static List<List<Object>> run(GenericUDTF function, StructObjectInspector args, Object... row) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    StructObjectInspector output = function.initialize(args);
    function.setCollector(forwarded -> rows.add(List.of((Object[]) forwarded)));
    function.process(row);
    function.close();
    assertEquals(rows.isEmpty() ? output.getAllStructFieldRefs().size() : rows.get(0).size(),
        output.getAllStructFieldRefs().size());
    return rows;
  }

  @Test
  public void sentimentWordsForwardOneRowPerWord() throws Exception {
    List<List<Object>> rows = run(new SentimentWordsUDTF(), arguments(STRING), "This kit is not sturdy. Overall, lovely set.");
    assertEquals(List.of(
        List.of(1, "This kit is not sturdy.", "NEG", "sturdy", true),
        List.of(2, "Overall, lovely set.", "POS", "lovely", false)), rows);
  }

  @Test
  public void sentencesForwardEverySentenceWithItsPolarity() throws Exception {
    List<List<Object>> rows = run(new SentencesUDTF(), arguments(STRING), "It came in a box. Terrible, awful thing.");
    assertEquals(List.of(List.of(1, "It came in a box.", "NEU", 0), List.of(2, "Terrible, awful thing.", "NEG", -2)), rows);
  }

  @Test
  public void aNullReviewGivesNoRows() throws Exception {
    assertEquals(List.of(), run(new SentencesUDTF(), arguments(STRING), (Object) null));
  }

  @Test
  public void nameMentionsUseTheGivenNamesOrTheCompetitorList() throws Exception {
    String review = "I saw it at Alderway. Northgate had one too.";
    assertEquals(List.of(List.of(1, "I saw it at Alderway.", "Alderway")),
        run(new NameMentionsUDTF(), arguments(STRING), review));
    assertEquals(List.of(List.of(2, "Northgate had one too.", "Northgate")),
        run(new NameMentionsUDTF(), arguments(STRING, STRING), review, "Northgate, Riverside"));
    ObjectInspector list = ObjectInspectorFactory.getStandardListObjectInspector(STRING);
    assertEquals(List.of(List.of(1, "I saw it at Alderway.", "Alderway"), List.of(2, "Northgate had one too.", "Northgate")),
        run(new NameMentionsUDTF(), arguments(STRING, list), review, List.of("Northgate", "Alderway")));
  }

  @Test
  public void mentionsIsTrueFalseOrNull() throws Exception {
    MentionsUDF mentions = new MentionsUDF();
    mentions.initialize(new ObjectInspector[] {STRING, STRING});
    assertEquals(true, mentions.evaluate(deferred("The maple court store.", "Maple Court")));
    assertEquals(false, mentions.evaluate(deferred("Oakridgeway", "Oakridge")));
    assertEquals(null, mentions.evaluate(deferred(null, "Oakridge")));
  }

  private static GenericUDF.DeferredObject[] deferred(Object text, Object name) {
    return new GenericUDF.DeferredObject[] {new GenericUDF.DeferredJavaObject(text), new GenericUDF.DeferredJavaObject(name)};
  }
}

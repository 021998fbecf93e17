package benchcamp.bigbench.text;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hive.ql.exec.Description;
import org.apache.hadoop.hive.ql.exec.UDFArgumentException;
import org.apache.hadoop.hive.ql.metadata.HiveException;
import org.apache.hadoop.hive.serde2.objectinspector.ListObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.PrimitiveObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.StructField;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorFactory;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorUtils;

/**
 * q27's function: the competitor names in each sentence of a review. The names are the jar's
 * competitors.txt unless a second argument gives them: a string of names separated by commas, or
 * an array of strings.
 */
@Description(
    name = "bb_name_mentions",
    value = "_FUNC_(text[, names]) - rows (sentence_no, sentence, name): each name found as whole"
        + " words (case-insensitive) in a sentence; names: 'A,B' or array('A','B'), default the"
        + " competitor list")
public final class NameMentionsUDTF extends TextUDTF {
  private ObjectInspector namesInspector;
  private Sentences sentences;
  private NameFinder defaultFinder;
  private List<String> lastNames;
  private NameFinder lastFinder;

  @Override
  protected String name() {
    return "bb_name_mentions";
  }

  @Override
  protected List<String> columnNames() {
    return List.of("sentence_no", "sentence", "name");
  }

  @Override
  protected List<ObjectInspector> columnInspectors() {
    return List.of(
        PrimitiveObjectInspectorFactory.javaIntObjectInspector,
        PrimitiveObjectInspectorFactory.javaStringObjectInspector,
        PrimitiveObjectInspectorFactory.javaStringObjectInspector);
  }

  @Override
  protected void checkExtraArguments(List<? extends StructField> extra) throws UDFArgumentException {
    if (extra.size() > 1) {
      throw new UDFArgumentException("bb_name_mentions takes the text and at most one list of names");
    }
    if (extra.isEmpty()) {
      return;
    }
    namesInspector = extra.get(0).getFieldObjectInspector();
    if (namesInspector instanceof ListObjectInspector list) {
      stringInspector(list.getListElementObjectInspector(), 1);
    } else {
      stringInspector(namesInspector, 1);
    }
  }

  @Override
  protected void processText(String text, Object[] args) throws HiveException {
    if (sentences == null) {
      sentences = new Sentences();
    }
    NameFinder finder = finderFor(args);
    List<String> split = sentences.split(text);
    for (int s = 0; s < split.size(); s++) {
      for (String name : finder.find(Sentences.tokens(split.get(s)))) {
        forward(new Object[] {s + 1, split.get(s), name});
      }
    }
  }

  private NameFinder finderFor(Object[] args) {
    if (namesInspector == null) {
      if (defaultFinder == null) {
        defaultFinder = NameFinder.competitors();
      }
      return defaultFinder;
    }
    List<String> names = names(args[1]);
    if (!names.equals(lastNames)) {
      lastNames = names;
      lastFinder = new NameFinder(names);
    }
    return lastFinder;
  }

  private List<String> names(Object value) {
    List<String> names = new ArrayList<>();
    if (value == null) {
      return names;
    }
    if (namesInspector instanceof ListObjectInspector list) {
      PrimitiveObjectInspector element = (PrimitiveObjectInspector) list.getListElementObjectInspector();
      for (Object item : list.getList(value)) {
        String name = PrimitiveObjectInspectorUtils.getString(item, element);
        if (name != null && !name.isBlank()) {
          names.add(name.trim());
        }
      }
      return names;
    }
    String joined = PrimitiveObjectInspectorUtils.getString(value, (PrimitiveObjectInspector) namesInspector);
    for (String name : Arrays.asList(joined.split(","))) {
      if (!name.isBlank()) {
        names.add(name.trim());
      }
    }
    return names;
  }
}

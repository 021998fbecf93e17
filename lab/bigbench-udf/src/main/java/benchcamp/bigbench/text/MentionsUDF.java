package benchcamp.bigbench.text;

import org.apache.hadoop.hive.ql.exec.Description;
import org.apache.hadoop.hive.ql.exec.UDFArgumentException;
import org.apache.hadoop.hive.ql.exec.UDFArgumentLengthException;
import org.apache.hadoop.hive.ql.exec.UDFArgumentTypeException;
import org.apache.hadoop.hive.ql.metadata.HiveException;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDF;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.PrimitiveObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorFactory;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorUtils;

/**
 * q18's join condition: does a sentence name a store? Whole words, case-insensitive (the
 * NameFinder rule), so a join on it does not match "Oakridge" inside "Oakridgeway".
 */
@Description(
    name = "bb_mentions",
    value = "_FUNC_(text, name) - true when name occurs in text as whole words, ignoring case; NULL if either is NULL")
public final class MentionsUDF extends GenericUDF {
  private PrimitiveObjectInspector textInspector;
  private PrimitiveObjectInspector nameInspector;

  @Override
  public ObjectInspector initialize(ObjectInspector[] arguments) throws UDFArgumentException {
    if (arguments.length != 2) {
      throw new UDFArgumentLengthException("bb_mentions takes two arguments: text and name");
    }
    textInspector = stringArgument(arguments[0], 0);
    nameInspector = stringArgument(arguments[1], 1);
    return PrimitiveObjectInspectorFactory.javaBooleanObjectInspector;
  }

  @Override
  public Object evaluate(DeferredObject[] arguments) throws HiveException {
    String text = PrimitiveObjectInspectorUtils.getString(arguments[0].get(), textInspector);
    String name = PrimitiveObjectInspectorUtils.getString(arguments[1].get(), nameInspector);
    if (text == null || name == null) {
      return null;
    }
    return NameFinder.mentions(text, name);
  }

  @Override
  public String getDisplayString(String[] children) {
    return "bb_mentions(" + String.join(", ", children) + ")";
  }

  private static PrimitiveObjectInspector stringArgument(ObjectInspector inspector, int position)
      throws UDFArgumentTypeException {
    if (inspector.getCategory() != ObjectInspector.Category.PRIMITIVE
        || PrimitiveObjectInspectorUtils.getPrimitiveGrouping(
                ((PrimitiveObjectInspector) inspector).getPrimitiveCategory())
            != PrimitiveObjectInspectorUtils.PrimitiveGrouping.STRING_GROUP) {
      throw new UDFArgumentTypeException(
          position, "bb_mentions: argument " + (position + 1) + " must be a string, got " + inspector.getTypeName());
    }
    return (PrimitiveObjectInspector) inspector;
  }
}

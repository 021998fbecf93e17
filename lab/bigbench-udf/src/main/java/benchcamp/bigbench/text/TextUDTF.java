package benchcamp.bigbench.text;

import java.util.List;
import org.apache.hadoop.hive.ql.exec.UDFArgumentException;
import org.apache.hadoop.hive.ql.exec.UDFArgumentTypeException;
import org.apache.hadoop.hive.ql.metadata.HiveException;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDTF;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspectorFactory;
import org.apache.hadoop.hive.serde2.objectinspector.PrimitiveObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.StructField;
import org.apache.hadoop.hive.serde2.objectinspector.StructObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorUtils;

/**
 * A table function over review text (first argument, any string type): checks the argument,
 * declares the output columns, and hands each row's text to {@link #processText}.
 */
abstract class TextUDTF extends GenericUDTF {
  private PrimitiveObjectInspector textInspector;
  protected List<? extends StructField> arguments;

  /** Output column names and inspectors, in order. */
  protected abstract List<String> columnNames();

  protected abstract List<ObjectInspector> columnInspectors();

  /** The function's SQL name, for error messages. */
  protected abstract String name();

  /** Accepts the arguments after the text (none unless overridden). */
  protected void checkExtraArguments(List<? extends StructField> extra) throws UDFArgumentException {
    if (!extra.isEmpty()) {
      throw new UDFArgumentException(name() + " takes one argument, the review text");
    }
  }

  /** Forwards the rows of one review's text (never null); `args` are the row's raw arguments. */
  protected abstract void processText(String text, Object[] args) throws HiveException;

  @Override
  public StructObjectInspector initialize(StructObjectInspector argInspector) throws UDFArgumentException {
    arguments = argInspector.getAllStructFieldRefs();
    if (arguments.isEmpty()) {
      throw new UDFArgumentException(name() + " needs the review text as its first argument");
    }
    textInspector = stringInspector(arguments.get(0).getFieldObjectInspector(), 0);
    checkExtraArguments(arguments.subList(1, arguments.size()));
    return ObjectInspectorFactory.getStandardStructObjectInspector(columnNames(), columnInspectors());
  }

  @Override
  public void process(Object[] args) throws HiveException {
    String text = PrimitiveObjectInspectorUtils.getString(args[0], textInspector);
    if (text != null) {
      processText(text, args);
    }
  }

  @Override
  public void close() {}

  protected PrimitiveObjectInspector stringInspector(ObjectInspector inspector, int position)
      throws UDFArgumentException {
    if (inspector.getCategory() != ObjectInspector.Category.PRIMITIVE
        || PrimitiveObjectInspectorUtils.getPrimitiveGrouping(
                ((PrimitiveObjectInspector) inspector).getPrimitiveCategory())
            != PrimitiveObjectInspectorUtils.PrimitiveGrouping.STRING_GROUP) {
      throw new UDFArgumentTypeException(
          position, name() + ": argument " + (position + 1) + " must be a string, got " + inspector.getTypeName());
    }
    return (PrimitiveObjectInspector) inspector;
  }
}

package benchcamp.graphmr;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.SequenceFileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.LazyOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.MultipleOutputs;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;

/**
 * Connected components by iterative minimum-label propagation. Job "init": edge list to node
 * records (label = the smallest id among the node and its neighbours, neighbour list). Each
 * iteration job: every node sends its label to its neighbours; a node takes the smallest label it
 * hears and counts LABEL_CHANGES when its label went down. The driver iterates until an iteration
 * changes no label (at most graphmr.components.max.iterations). Job "sizes": labels per node
 * (labels/) and nodes per label (sizes/); COMPONENTS and ITERATIONS are its counters.
 */
public class Components extends GraphMR.Chain {
  /** Upper bound on propagation iterations; the chain fails when it is reached (default 200). */
  public static final String MAX_ITERATIONS = "graphmr.components.max.iterations";

  static final String ITERATIONS_CONF = "graphmr.components.iterations";

  @Override
  String name() {
    return "components";
  }

  static Path state(Path out, int iteration) {
    return new Path(out, String.format(Locale.ROOT, "iteration-%03d", iteration));
  }

  @Override
  boolean chain() throws Exception {
    int max = getConf().getInt(MAX_ITERATIONS, 200);
    Path current = state(out, 0);
    intermediate.add(current);

    Job init = newJob("init");
    init.setInputFormatClass(TextInputFormat.class);
    FileInputFormat.addInputPath(init, in);
    init.setMapperClass(Edges.DirectedMapper.class);
    init.setMapOutputKeyClass(LongWritable.class);
    init.setMapOutputValueClass(LongWritable.class);
    init.setReducerClass(InitReducer.class);
    init.setOutputKeyClass(LongWritable.class);
    init.setOutputValueClass(NodeState.class);
    init.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(init, current);
    if (!submit(init)) {
      return false;
    }

    int iterations = 0;
    long changes = -1;
    while (changes != 0) {
      if (iterations == max) {
        System.err.println("graphmr: components did not converge within " + max + " iterations (" + MAX_ITERATIONS + ")");
        return false;
      }
      iterations++;
      Path next = state(out, iterations);
      intermediate.add(next);
      Job it = newJob(String.format(Locale.ROOT, "iteration-%03d", iterations));
      it.setInputFormatClass(SequenceFileInputFormat.class);
      FileInputFormat.addInputPath(it, current);
      it.setMapperClass(PropagateMapper.class);
      it.setMapOutputKeyClass(LongWritable.class);
      it.setMapOutputValueClass(NodeState.class);
      it.setReducerClass(MinLabelReducer.class);
      it.setOutputKeyClass(LongWritable.class);
      it.setOutputValueClass(NodeState.class);
      it.setOutputFormatClass(SequenceFileOutputFormat.class);
      FileOutputFormat.setOutputPath(it, next);
      if (!submit(it)) {
        return false;
      }
      changes = counter(it, GraphCounter.LABEL_CHANGES);
      System.err.println("graphmr: components iteration " + iterations + " label_changes=" + changes);
      if (!getConf().getBoolean(GraphMR.KEEP_INTERMEDIATE, false)) {
        fs.delete(current, true);
      }
      current = next;
    }

    Path result = new Path(out, "components");
    Job sizes = newJob("sizes");
    sizes.getConfiguration().setInt(ITERATIONS_CONF, iterations);
    sizes.setInputFormatClass(SequenceFileInputFormat.class);
    FileInputFormat.addInputPath(sizes, current);
    sizes.setMapperClass(LabelMapper.class);
    sizes.setMapOutputKeyClass(LongWritable.class);
    sizes.setMapOutputValueClass(LongWritable.class);
    sizes.setCombinerClass(SumCombiner.class);
    sizes.setReducerClass(SizeReducer.class);
    sizes.setOutputKeyClass(LongWritable.class);
    sizes.setOutputValueClass(LongWritable.class);
    LazyOutputFormat.setOutputFormatClass(sizes, TextOutputFormat.class);
    MultipleOutputs.addNamedOutput(sizes, "labels", TextOutputFormat.class, LongWritable.class, LongWritable.class);
    MultipleOutputs.addNamedOutput(sizes, "sizes", TextOutputFormat.class, LongWritable.class, LongWritable.class);
    FileOutputFormat.setOutputPath(sizes, result);
    if (!submit(sizes)) {
      return false;
    }
    summary.put("iterations", counter(sizes, GraphCounter.ITERATIONS));
    summary.put("nodes", counter(init, GraphCounter.NODES));
    summary.put("edges", counter(init, GraphCounter.EDGES));
    summary.put("self_loops", counter(init, GraphCounter.SELF_LOOPS));
    summary.put("components", counter(sizes, GraphCounter.COMPONENTS));
    summary.put("largest", largest(new Path(result, "sizes")));
    return true;
  }

  /** The largest component's size, read from the sizes output ("label TAB size" lines). */
  private long largest(Path sizes) throws IOException {
    long best = 0;
    if (!fs.exists(sizes)) {
      return 0;
    }
    for (FileStatus f : fs.listStatus(sizes, p -> p.getName().startsWith("part-"))) {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(f.getPath()), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          best = Math.max(best, Long.parseLong(line.substring(line.indexOf('\t') + 1)));
        }
      }
    }
    return best;
  }

  /** init reduce: node -> record (label = min of itself and its neighbours, neighbour list). */
  public static class InitReducer extends Reducer<LongWritable, LongWritable, LongWritable, NodeState> {
    private final Edges.Collector collector = new Edges.Collector();
    private final NodeState record = new NodeState();

    @Override
    protected void reduce(LongWritable node, Iterable<LongWritable> values, Context context)
        throws IOException, InterruptedException {
      collector.collect(values);
      long u = node.get();
      long higher = 0;
      for (int i = 0; i < collector.n; i++) {
        if (collector.buf[i] > u) {
          higher++;
        }
      }
      context.getCounter(GraphCounter.NODES).increment(1);
      context.getCounter(GraphCounter.EDGES).increment(higher);
      long label = collector.n > 0 ? Math.min(u, collector.buf[0]) : u;
      record.setRecord(label, collector.buf, collector.n);
      context.write(node, record);
    }
  }

  /** iteration map: the record to itself, its label to every neighbour. */
  public static class PropagateMapper extends Mapper<LongWritable, NodeState, LongWritable, NodeState> {
    private final LongWritable target = new LongWritable();
    private final NodeState message = new NodeState();

    @Override
    protected void map(LongWritable node, NodeState record, Context context)
        throws IOException, InterruptedException {
      context.write(node, record);
      message.setMessage(record.label());
      LongArray nb = record.neighbours();
      for (int i = 0; i < nb.length(); i++) {
        target.set(nb.get(i));
        context.write(target, message);
      }
    }
  }

  /** iteration reduce: the record with the smallest label heard; counts label changes. */
  public static class MinLabelReducer extends Reducer<LongWritable, NodeState, LongWritable, NodeState> {
    private final NodeState record = new NodeState();

    @Override
    protected void reduce(LongWritable node, Iterable<NodeState> values, Context context)
        throws IOException, InterruptedException {
      long min = Long.MAX_VALUE;
      boolean found = false;
      long[] neighbours = null;
      long own = 0;
      for (NodeState v : values) {
        if (v.isRecord()) {
          found = true;
          own = v.label();
          neighbours = v.neighbours().toArray();
        } else {
          min = Math.min(min, v.label());
        }
      }
      if (!found) {
        throw new IOException("node " + node + " received labels but has no record");
      }
      long label = own;
      if (min < own) {
        label = min;
        context.getCounter(GraphCounter.LABEL_CHANGES).increment(1);
      }
      record.setRecord(label, neighbours, neighbours.length);
      context.write(node, record);
    }
  }

  /** sizes map: writes "node TAB label" to labels/, emits (label, 1). */
  public static class LabelMapper extends Mapper<LongWritable, NodeState, LongWritable, LongWritable> {
    private final LongWritable label = new LongWritable();
    private final LongWritable one = new LongWritable(1);
    private MultipleOutputs<LongWritable, LongWritable> mos;

    @Override
    protected void setup(Context context) {
      mos = new MultipleOutputs<>(context);
    }

    @Override
    protected void map(LongWritable node, NodeState record, Context context)
        throws IOException, InterruptedException {
      label.set(record.label());
      mos.write("labels", node, label, "labels/part");
      context.write(label, one);
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      mos.close();
    }
  }

  /** sizes combine: partial node counts per label. */
  public static class SumCombiner extends Reducer<LongWritable, LongWritable, LongWritable, LongWritable> {
    private final LongWritable sum = new LongWritable();

    @Override
    protected void reduce(LongWritable label, Iterable<LongWritable> values, Context context)
        throws IOException, InterruptedException {
      long s = 0;
      for (LongWritable v : values) {
        s += v.get();
      }
      sum.set(s);
      context.write(label, sum);
    }
  }

  /** sizes reduce: "label TAB size" to sizes/; COMPONENTS per label, ITERATIONS once (partition 0). */
  public static class SizeReducer extends Reducer<LongWritable, LongWritable, LongWritable, LongWritable> {
    private final LongWritable size = new LongWritable();
    private MultipleOutputs<LongWritable, LongWritable> mos;

    @Override
    protected void setup(Context context) {
      mos = new MultipleOutputs<>(context);
      if (context.getTaskAttemptID().getTaskID().getId() == 0) {
        context.getCounter(GraphCounter.ITERATIONS).increment(context.getConfiguration().getInt(ITERATIONS_CONF, 0));
      }
    }

    @Override
    protected void reduce(LongWritable label, Iterable<LongWritable> values, Context context)
        throws IOException, InterruptedException {
      long s = 0;
      for (LongWritable v : values) {
        s += v.get();
      }
      size.set(s);
      context.getCounter(GraphCounter.COMPONENTS).increment(1);
      mos.write("sizes", label, size, "sizes/part");
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      mos.close();
    }
  }
}

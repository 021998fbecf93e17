package benchcamp.graphmr;

import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.MultipleInputs;
import org.apache.hadoop.mapreduce.lib.input.SequenceFileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;

/**
 * Exact triangle counting in two jobs (the wedge/close scheme of NodeIterator++, with node ids as
 * the total order). Job 1 (wedges): per node u, every pair v < w of its neighbours above u is an
 * open wedge keyed by its closing pair (v, w), valued u. Job 2 (close): the wedges joined with the
 * edges (marker -1) on the pair; a pair that is an edge closes all its wedges. Each triangle is
 * counted once, at its lowest node.
 */
public class Triangles extends GraphMR.Chain {
  static final long EDGE_MARKER = -1;

  @Override
  String name() {
    return "triangles";
  }

  @Override
  boolean chain() throws Exception {
    Path wedges = new Path(out, "wedges");
    Path result = new Path(out, "triangles");
    intermediate.add(wedges);

    Job j1 = newJob("1-wedges");
    j1.setInputFormatClass(TextInputFormat.class);
    FileInputFormat.addInputPath(j1, in);
    j1.setMapperClass(Edges.DirectedMapper.class);
    j1.setMapOutputKeyClass(LongWritable.class);
    j1.setMapOutputValueClass(LongWritable.class);
    j1.setReducerClass(WedgeReducer.class);
    j1.setOutputKeyClass(LongPair.class);
    j1.setOutputValueClass(LongWritable.class);
    j1.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(j1, wedges);
    if (!submit(j1)) {
      return false;
    }

    Job j2 = newJob("2-close");
    MultipleInputs.addInputPath(j2, wedges, SequenceFileInputFormat.class, Mapper.class);
    MultipleInputs.addInputPath(j2, in, TextInputFormat.class, EdgeKeyMapper.class);
    j2.setMapOutputKeyClass(LongPair.class);
    j2.setMapOutputValueClass(LongWritable.class);
    j2.setReducerClass(CloseReducer.class);
    j2.setOutputKeyClass(LongPair.class);
    j2.setOutputValueClass(LongWritable.class);
    j2.setOutputFormatClass(TextOutputFormat.class);
    FileOutputFormat.setOutputPath(j2, result);
    if (!submit(j2)) {
      return false;
    }
    summary.put("nodes", counter(j1, GraphCounter.NODES));
    summary.put("edges", counter(j1, GraphCounter.EDGES));
    summary.put("self_loops", counter(j1, GraphCounter.SELF_LOOPS));
    summary.put("wedges", counter(j1, GraphCounter.WEDGES));
    summary.put("triangles", counter(j2, GraphCounter.TRIANGLES));
    return true;
  }

  /** Job 1 reduce: node u with neighbours -> ((v, w), u) for every u < v < w in N(u). */
  public static class WedgeReducer extends Reducer<LongWritable, LongWritable, LongPair, LongWritable> {
    private final Edges.Collector collector = new Edges.Collector();
    private final LongPair pair = new LongPair();

    @Override
    protected void reduce(LongWritable node, Iterable<LongWritable> values, Context context)
        throws IOException, InterruptedException {
      collector.collect(values);
      long u = node.get();
      long[] nb = collector.buf;
      int n = collector.n;
      int lo = 0;
      while (lo < n && nb[lo] < u) {
        lo++;
      }
      context.getCounter(GraphCounter.NODES).increment(1);
      context.getCounter(GraphCounter.EDGES).increment(n - lo);
      long emitted = 0;
      for (int i = lo; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
          pair.set(nb[i], nb[j]);
          context.write(pair, node);
          emitted++;
        }
      }
      context.getCounter(GraphCounter.WEDGES).increment(emitted);
    }
  }

  /** Job 2 map (edges): "u v" -> ((min, max), -1). */
  public static class EdgeKeyMapper extends Mapper<LongWritable, Text, LongPair, LongWritable> {
    private final LongPair pair = new LongPair();
    private final LongWritable marker = new LongWritable(EDGE_MARKER);

    @Override
    protected void map(LongWritable offset, Text line, Context context)
        throws IOException, InterruptedException {
      long[] e;
      try {
        e = Edges.parse(line.toString());
      } catch (IllegalArgumentException ex) {
        throw new IOException("malformed edge line in " + Edges.where(context, offset) + ": " + ex.getMessage());
      }
      if (e == null || e[0] == e[1]) {
        return;
      }
      pair.setOrdered(e[0], e[1]);
      context.write(pair, marker);
    }
  }

  /** Job 2 reduce: a closing pair that is an edge -> "v TAB w TAB triangles closed". */
  public static class CloseReducer extends Reducer<LongPair, LongWritable, LongPair, LongWritable> {
    private final LongWritable count = new LongWritable();

    @Override
    protected void reduce(LongPair pair, Iterable<LongWritable> values, Context context)
        throws IOException, InterruptedException {
      boolean edge = false;
      long wedges = 0;
      for (LongWritable v : values) {
        if (v.get() == EDGE_MARKER) {
          edge = true;
        } else {
          wedges++;
        }
      }
      if (edge && wedges > 0) {
        context.getCounter(GraphCounter.TRIANGLES).increment(wedges);
        count.set(wedges);
        context.write(pair, count);
      }
    }
  }
}

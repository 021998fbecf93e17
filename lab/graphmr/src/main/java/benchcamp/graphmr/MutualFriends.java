package benchcamp.graphmr;

import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.SequenceFileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;

/**
 * Mutual friends in two jobs. Job 1 (neighbours): edge list to each node's sorted distinct
 * neighbour list. Job 2 (pairs): every node sends its whole list to each of its friend pairs
 * (smaller id first); the pair's reducer receives the two lists and writes their intersection.
 */
public class MutualFriends extends GraphMR.Chain {
  @Override
  String name() {
    return "mutual_friends";
  }

  @Override
  boolean chain() throws Exception {
    Path neighbours = new Path(out, "neighbours");
    Path result = new Path(out, "mutual_friends");
    intermediate.add(neighbours);

    Job j1 = newJob("1-neighbours");
    j1.setInputFormatClass(TextInputFormat.class);
    FileInputFormat.addInputPath(j1, in);
    j1.setMapperClass(Edges.DirectedMapper.class);
    j1.setMapOutputKeyClass(LongWritable.class);
    j1.setMapOutputValueClass(LongWritable.class);
    j1.setReducerClass(NeighbourReducer.class);
    j1.setOutputKeyClass(LongWritable.class);
    j1.setOutputValueClass(LongArray.class);
    j1.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(j1, neighbours);
    if (!submit(j1)) {
      return false;
    }

    Job j2 = newJob("2-pairs");
    j2.setInputFormatClass(SequenceFileInputFormat.class);
    FileInputFormat.addInputPath(j2, neighbours);
    j2.setMapperClass(PairMapper.class);
    j2.setMapOutputKeyClass(LongPair.class);
    j2.setMapOutputValueClass(LongArray.class);
    j2.setReducerClass(IntersectReducer.class);
    j2.setOutputKeyClass(LongPair.class);
    j2.setOutputValueClass(Text.class);
    j2.setOutputFormatClass(TextOutputFormat.class);
    FileOutputFormat.setOutputPath(j2, result);
    if (!submit(j2)) {
      return false;
    }
    summary.put("nodes", counter(j1, GraphCounter.NODES));
    summary.put("edges", counter(j1, GraphCounter.EDGES));
    summary.put("self_loops", counter(j1, GraphCounter.SELF_LOOPS));
    summary.put("pairs", counter(j2, GraphCounter.PAIRS));
    summary.put("mutual_friends", counter(j2, GraphCounter.MUTUAL_FRIENDS));
    return true;
  }

  /** Job 1 reduce: node -> sorted distinct neighbour list. */
  public static class NeighbourReducer extends Reducer<LongWritable, LongWritable, LongWritable, LongArray> {
    private final Edges.Collector collector = new Edges.Collector();
    private final LongArray list = new LongArray();

    @Override
    protected void reduce(LongWritable node, Iterable<LongWritable> values, Context context)
        throws IOException, InterruptedException {
      collector.collect(values);
      long higher = 0;
      for (int i = 0; i < collector.n; i++) {
        if (collector.buf[i] > node.get()) {
          higher++;
        }
      }
      context.getCounter(GraphCounter.NODES).increment(1);
      context.getCounter(GraphCounter.EDGES).increment(higher);
      list.set(collector.buf, collector.n);
      context.write(node, list);
    }
  }

  /** Job 2 map: (u, N(u)) -> ((min(u,v), max(u,v)), N(u)) for every v in N(u). */
  public static class PairMapper extends Mapper<LongWritable, LongArray, LongPair, LongArray> {
    private final LongPair pair = new LongPair();

    @Override
    protected void map(LongWritable node, LongArray list, Context context)
        throws IOException, InterruptedException {
      long u = node.get();
      for (int i = 0; i < list.length(); i++) {
        pair.setOrdered(u, list.get(i));
        context.write(pair, list);
      }
    }
  }

  /** Job 2 reduce: the pair's two lists -> their intersection, "a TAB b TAB m1,m2,...". */
  public static class IntersectReducer extends Reducer<LongPair, LongArray, LongPair, Text> {
    private final Text text = new Text();

    @Override
    protected void reduce(LongPair pair, Iterable<LongArray> lists, Context context)
        throws IOException, InterruptedException {
      long[] a = null;
      long[] b = null;
      int count = 0;
      for (LongArray list : lists) {
        if (count == 0) {
          a = list.toArray();
        } else {
          b = list.toArray();
        }
        count++;
      }
      if (count != 2) {
        throw new IOException("pair " + pair + " received " + count + " neighbour lists, expected 2");
      }
      long[] common = new long[Math.min(a.length, b.length)];
      int n = Edges.intersect(a, a.length, b, b.length, common);
      context.getCounter(GraphCounter.PAIRS).increment(1);
      context.getCounter(GraphCounter.MUTUAL_FRIENDS).increment(n);
      text.set(LongArray.join(common, n));
      context.write(pair, text);
    }
  }
}

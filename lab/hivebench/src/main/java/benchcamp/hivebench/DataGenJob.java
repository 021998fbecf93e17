package benchcamp.hivebench;

import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * The HiveBench generator as a map-only MapReduce job, for clusters: data generation runs where
 * the data lives, one map per part, each writing its part of rankings and of uservisits straight
 * onto the job's file system (HDFS), never through the gateway.
 *
 * <p>Map k writes exactly the bytes {@link DataGen} writes into its part k for the same pages,
 * visits, seed and files (every row is a function of (seed, table, row), and the parts split the
 * rows the same way), so a cluster's tables are the single host's, file for file. The driver sums
 * the parts' bytes and join-range visits (counters), ORs the pool entries the parts used (each
 * map writes its set under {@code _ips}, removed afterwards) and writes {@code stats.json} into
 * the output directory (and, with {@code --stats}, into a local file), as {@link DataGen} does.
 *
 * <pre>hadoop jar hivebench-datagen.jar job [-D k=v ...]
 *     --pages N --uservisits M --files K --out DIR [--seed S] [--stats LOCAL_FILE]</pre>
 */
public final class DataGenJob extends Configured implements Tool {
  static final String PAGES = "benchcamp.hivebench.pages";
  static final String VISITS = "benchcamp.hivebench.uservisits";
  static final String SEED = "benchcamp.hivebench.seed";
  static final String FILES = "benchcamp.hivebench.files";
  static final String OUT = "benchcamp.hivebench.out";
  static final String IPS = "_ips";

  /** What the maps wrote, summed by the framework. */
  enum Written {
    RANKINGS_BYTES,
    USERVISITS_BYTES,
    VISITS_1999_2000
  }

  /** One split per part: its map is given the part number and reads nothing. */
  public static final class PartSplit extends InputSplit implements Writable {
    int part;

    public PartSplit() {}

    PartSplit(int part) {
      this.part = part;
    }

    @Override
    public long getLength() {
      return 0;
    }

    @Override
    public String[] getLocations() {
      return new String[0];
    }

    @Override
    public void write(DataOutput out) throws IOException {
      out.writeInt(part);
    }

    @Override
    public void readFields(DataInput in) throws IOException {
      part = in.readInt();
    }
  }

  /** {@code files} splits, each one record: its part number. */
  public static final class PartInputFormat extends InputFormat<IntWritable, NullWritable> {
    @Override
    public List<InputSplit> getSplits(JobContext context) {
      int files = context.getConfiguration().getInt(FILES, 1);
      List<InputSplit> splits = new ArrayList<>(files);
      for (int part = 0; part < files; part++) {
        splits.add(new PartSplit(part));
      }
      return splits;
    }

    @Override
    public RecordReader<IntWritable, NullWritable> createRecordReader(InputSplit split, TaskAttemptContext context) {
      return new RecordReader<>() {
        private IntWritable key;
        private boolean read;

        @Override
        public void initialize(InputSplit given, TaskAttemptContext attempt) {
          key = new IntWritable(((PartSplit) given).part);
        }

        @Override
        public boolean nextKeyValue() {
          boolean first = !read;
          read = true;
          return first;
        }

        @Override
        public IntWritable getCurrentKey() {
          return key;
        }

        @Override
        public NullWritable getCurrentValue() {
          return NullWritable.get();
        }

        @Override
        public float getProgress() {
          return read ? 1 : 0;
        }

        @Override
        public void close() {}
      };
    }
  }

  /** Writes one part of both tables, and the pool entries its visits used. */
  public static final class PartMapper extends Mapper<IntWritable, NullWritable, NullWritable, NullWritable> {
    @Override
    protected void map(IntWritable key, NullWritable value, Context context) throws IOException {
      Configuration conf = context.getConfiguration();
      DataGen gen = new DataGen(conf.getLong(PAGES, 1), conf.getLong(VISITS, 1), conf.getLong(SEED, 1), conf.getInt(FILES, 1));
      int part = key.get();
      Path out = new Path(conf.get(OUT));
      FileSystem fs = out.getFileSystem(conf);
      String name = DataGen.partName(part);
      // overwrite: a retried attempt rewrites the same bytes (speculative attempts are off)
      long rankings = gen.writeRankings(part, fs.create(new Path(out, "rankings/" + name), true));
      context.getCounter(Written.RANKINGS_BYTES).increment(rankings);
      context.progress();
      BitSet used = new BitSet();
      long[] visits = gen.writeVisits(part, fs.create(new Path(out, "uservisits/" + name), true), used);
      context.getCounter(Written.USERVISITS_BYTES).increment(visits[0]);
      context.getCounter(Written.VISITS_1999_2000).increment(visits[1]);
      long[] words = used.toLongArray();
      try (FSDataOutputStream ips = fs.create(new Path(out, IPS + "/" + name), true)) {
        ips.writeInt(words.length);
        for (long word : words) {
          ips.writeLong(word);
        }
      }
    }
  }

  static int usage(String problem) {
    System.err.println("error: " + problem);
    System.err.println("usage: hadoop jar hivebench-datagen.jar job [-D k=v ...] "
        + "--pages N --uservisits M --files K --out DIR [--seed S] [--stats LOCAL_FILE]");
    return 2;
  }

  @Override
  public int run(String[] arguments) throws Exception {
    DataGen.Args args = DataGen.Args.parse(arguments, -1, true, "--files K (the number of maps, at least 1) is required");
    if (args.problem != null) {
      return usage(args.problem);
    }
    Configuration conf = getConf();
    Path outDir = new Path(args.out);
    FileSystem fs = outDir.getFileSystem(conf);
    for (String table : new String[] {"rankings", "uservisits"}) {
      Path dir = new Path(outDir, table);
      if (fs.exists(dir) && fs.listStatus(dir).length > 0) {
        return usage(fs.makeQualified(dir) + " already contains files: use an empty --out directory");
      }
    }
    conf.setLong(PAGES, args.pages);
    conf.setLong(VISITS, args.visits);
    conf.setLong(SEED, args.seed);
    conf.setInt(FILES, args.files);
    conf.set(OUT, fs.makeQualified(outDir).toString());
    Job job = Job.getInstance(conf, "hivebench-datagen pages=" + args.pages + " uservisits=" + args.visits + " seed=" + args.seed);
    job.setJarByClass(DataGenJob.class);
    job.setInputFormatClass(PartInputFormat.class);
    job.setMapperClass(PartMapper.class);
    job.setNumReduceTasks(0);
    job.setMapSpeculativeExecution(false);
    job.setOutputFormatClass(NullOutputFormat.class);
    job.setOutputKeyClass(NullWritable.class);
    job.setOutputValueClass(NullWritable.class);
    long started = System.nanoTime();
    if (!job.waitForCompletion(true)) {
      System.err.println("error: the generator job " + job.getJobID() + " failed: " + job.getStatus().getFailureInfo());
      return 1;
    }
    DataGen gen = new DataGen(args.pages, args.visits, args.seed, args.files);
    DataGen.Stats stats = new DataGen.Stats();
    stats.rankingsBytes = job.getCounters().findCounter(Written.RANKINGS_BYTES).getValue();
    stats.uservisitsBytes = job.getCounters().findCounter(Written.USERVISITS_BYTES).getValue();
    stats.visits1999to2000 = job.getCounters().findCounter(Written.VISITS_1999_2000).getValue();
    BitSet all = new BitSet();
    Path ipsDir = new Path(outDir, IPS);
    for (FileStatus part : fs.listStatus(ipsDir)) {
      try (DataInputStream in = fs.open(part.getPath())) {
        long[] words = new long[in.readInt()];
        for (int i = 0; i < words.length; i++) {
          words[i] = in.readLong();
        }
        all.or(BitSet.valueOf(words));
      }
    }
    fs.delete(ipsDir, true);
    stats.distinctSourceIps = all.cardinality();
    stats.elapsedS = (System.nanoTime() - started) / 1e9;
    byte[] json = stats.toJson(gen).getBytes(StandardCharsets.US_ASCII);
    try (FSDataOutputStream stream = fs.create(new Path(outDir, "stats.json"), true)) {
      stream.write(json);
    }
    if (args.stats != null) {
      try (FileOutputStream stream = new FileOutputStream(new File(args.stats))) {
        stream.write(json);
      }
    }
    System.out.print(new String(json, StandardCharsets.US_ASCII));
    return 0;
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new DataGenJob(), args));
  }
}

package benchcamp.graphmr;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.util.GenericOptionsParser;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * Entry point: {@code graphmr.jar <algorithm> [generic options] <in> <out>} with algorithm one of
 * mutual_friends, triangles, components. Generic options ({@code -D k=v}, ...) may stand before
 * or after the algorithm's name. Each algorithm is a chain of jobs; at the end the driver prints
 * one summary line {@code graphmr: algorithm=... key=value ...} and writes it to out/summary.txt.
 */
public class GraphMR extends Configured implements Tool {
  /** Keep the chain's intermediate outputs (neighbour lists, wedges, iterations); default false. */
  public static final String KEEP_INTERMEDIATE = "graphmr.keep.intermediate";

  static final String USAGE =
      "usage: graphmr <mutual_friends|triangles|components> [-D key=value ...] <in> <out>";

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new GraphMR(), args));
  }

  @Override
  public int run(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println(USAGE);
      return 2;
    }
    String name = args[0];
    // Options after the algorithm's name: ToolRunner's parser stopped at the name, parse the rest.
    Configuration conf = getConf();
    String[] rest = new GenericOptionsParser(conf, Arrays.copyOfRange(args, 1, args.length)).getRemainingArgs();
    Chain chain =
        switch (name) {
          case "mutual_friends" -> new MutualFriends();
          case "triangles" -> new Triangles();
          case "components" -> new Components();
          default -> null;
        };
    if (chain == null) {
      System.err.println("graphmr: unknown algorithm '" + name + "'\n" + USAGE);
      return 2;
    }
    if (rest.length != 2) {
      System.err.println("graphmr: expected <in> <out>, got " + Arrays.toString(rest) + "\n" + USAGE);
      return 2;
    }
    chain.setConf(conf);
    return chain.run(rest);
  }

  /** One algorithm: a chain of jobs with shared bookkeeping (job ids, summary, clean-up). */
  abstract static class Chain extends Configured implements Tool {
    final List<String> jobIds = new ArrayList<>();
    final List<Path> intermediate = new ArrayList<>();
    final Map<String, Object> summary = new LinkedHashMap<>();
    Path in;
    Path out;
    FileSystem fs;

    abstract String name();

    /** Runs the chain's jobs, filling {@link #summary}; false when a job failed. */
    abstract boolean chain() throws Exception;

    @Override
    public int run(String[] args) throws Exception {
      Configuration conf = getConf();
      in = new Path(args[0]);
      out = new Path(args[1]);
      fs = out.getFileSystem(conf);
      if (fs.exists(out)) {
        System.err.println("graphmr: output directory " + out + " already exists");
        return 2;
      }
      long start = System.nanoTime();
      summary.put("algorithm", name());
      if (!chain()) {
        System.err.println("graphmr: algorithm=" + name() + " failed after jobs=" + jobIds.size()
            + " job_ids=" + String.join(",", jobIds) + "; partial outputs left in " + out);
        return 1;
      }
      if (!conf.getBoolean(KEEP_INTERMEDIATE, false)) {
        for (Path p : intermediate) {
          fs.delete(p, true);
        }
      }
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("algorithm", name());
      line.put("jobs", jobIds.size());
      summary.remove("algorithm");
      line.putAll(summary);
      line.put("seconds", String.format(Locale.ROOT, "%.3f", (System.nanoTime() - start) / 1e9));
      line.put("job_ids", String.join(",", jobIds));
      line.put("output", out.toString());
      StringBuilder sb = new StringBuilder("graphmr:");
      line.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
      String text = sb.toString();
      try (OutputStream os = fs.create(new Path(out, "summary.txt"), false)) {
        os.write((text + "\n").getBytes(StandardCharsets.UTF_8));
      }
      System.out.println(text);
      return 0;
    }

    /** A new job of this chain, named "graphmr <algorithm> <step>". */
    Job newJob(String step) throws IOException {
      Job job = Job.getInstance(new Configuration(getConf()), "graphmr " + name() + " " + step);
      job.setJarByClass(GraphMR.class);
      if (job.getNumReduceTasks() < 1) {
        job.setNumReduceTasks(1); // every job of every chain joins in its reduce: never map-only
      }
      return job;
    }

    /** Submits and waits; records the job id. */
    boolean submit(Job job) throws Exception {
      job.submit();
      jobIds.add(job.getJobID().toString());
      if (job.waitForCompletion(true)) {
        return true;
      }
      System.err.println("graphmr: job " + job.getJobName() + " (" + job.getJobID() + ") failed: " + failure(job));
      return false;
    }

    /** The first failed task's diagnostics (the exception message), else the job's failure info. */
    static String failure(Job job) {
      try {
        for (int from = 0; ; ) {
          TaskCompletionEvent[] events = job.getTaskCompletionEvents(from, 100);
          if (events.length == 0) {
            break;
          }
          for (TaskCompletionEvent e : events) {
            if (e.getStatus() == TaskCompletionEvent.Status.FAILED || e.getStatus() == TaskCompletionEvent.Status.TIPFAILED) {
              for (String d : job.getTaskDiagnostics(e.getTaskAttemptId())) {
                if (d != null && !d.isBlank()) {
                  return d.lines().findFirst().orElse(d);
                }
              }
            }
          }
          from += events.length;
        }
        String info = job.getStatus().getFailureInfo();
        return info == null ? String.valueOf(job.getStatus().getState()) : info.replace('\n', ' ');
      } catch (IOException | InterruptedException e) {
        return "(diagnostics unavailable: " + e + ")";
      }
    }

    static long counter(Job job, GraphCounter c) throws IOException {
      return job.getCounters().findCounter(c).getValue();
    }
  }
}

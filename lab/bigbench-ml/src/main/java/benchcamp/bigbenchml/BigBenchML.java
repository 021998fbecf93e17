package benchcamp.bigbenchml;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.classification.LogisticRegressionModel;
import org.apache.spark.ml.classification.NaiveBayes;
import org.apache.spark.ml.classification.NaiveBayesModel;
import org.apache.spark.ml.clustering.KMeans;
import org.apache.spark.ml.clustering.KMeansModel;
import org.apache.spark.ml.evaluation.BinaryClassificationEvaluator;
import org.apache.spark.ml.feature.HashingTF;
import org.apache.spark.ml.feature.IDF;
import org.apache.spark.ml.feature.IDFModel;
import org.apache.spark.ml.feature.RegexTokenizer;
import org.apache.spark.ml.feature.StandardScaler;
import org.apache.spark.ml.feature.StandardScalerModel;
import org.apache.spark.ml.feature.VectorAssembler;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The machine-learning step of the BigBench-derived queries q05, q20, q25, q26 and q28: reads
 * the '|'-separated files a Hive query exported (INSERT OVERWRITE DIRECTORY), fits one Spark
 * MLlib model and writes a small JSON result (cluster centres and sizes, or coefficients and
 * test metrics). Deterministic for a given input and seed: k-means|| is seeded, the train/test
 * split hashes each row's id with the seed (independent of partitioning), L-BFGS and naive
 * Bayes are deterministic.
 *
 * <pre>
 * kmeans     --input DIR --output FILE --columns id,f1,f2,... --k K [--iterations N] [--seed S]
 * logreg     --input DIR --output FILE --columns id,label,f1,... [--iterations N] [--seed S]
 *            [--reg-param R] [--test-percent P]
 * naivebayes --input DIR --output FILE [--seed S] [--test-percent P] [--smoothing A]
 *            [--num-features F]          (input rows: id|label|text, label a class number)
 * common:    [--master local[2]]
 * </pre>
 */
public final class BigBenchML {
  static final String USAGE =
      "usage: BigBenchML <kmeans|logreg|naivebayes> --input DIR --output FILE [--option value ...]";
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private BigBenchML() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      fail(USAGE);
    }
    String model = args[0];
    Options options = null;
    try {
      options = Options.parse(Arrays.copyOfRange(args, 1, args.length));
      options.require("input");
      options.require("output");
    } catch (IllegalArgumentException e) {
      fail("bigbench-ml: " + e.getMessage());
    }
    long started = System.nanoTime();
    SparkSession spark = session(options.get("master", "local[2]"));
    // JVM start to a running session, apart from the model's own time: on two shared cores the
    // start-up is a large part of an ML query's time
    double startupSeconds =
        (System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime()) / 1e3;
    long sessionReady = System.nanoTime();
    try {
      ObjectNode result;
      try {
        result = run(spark, model, options);
      } catch (IllegalArgumentException e) {
        spark.stop();
        fail("bigbench-ml " + model + ": " + e.getMessage());
        return;
      }
      result.put("spark_version", spark.version());
      result.put("elapsed_s", (System.nanoTime() - started) / 1e9);
      result.put("startup_s", startupSeconds);
      result.put("model_s", (System.nanoTime() - sessionReady) / 1e9);
      writeAtomically(Path.of(options.require("output")), JSON.writeValueAsString(result) + "\n");
    } finally {
      spark.stop();
    }
  }

  /**
   * A session without UI, two shuffle partitions: inputs are small, JVM start dominates. Any of
   * these settings given as a system property (`-Dspark.driver.host=...`, the environment's
   * `spark_conf`) wins over the default here: on YARN the executors must reach the driver at an
   * address of the controller that the cluster can route to, not at its loopback.
   */
  static SparkSession session(String master) {
    SparkSession.Builder builder = SparkSession.builder().appName("bigbench-ml").master(master);
    String[][] defaults = {
      {"spark.ui.enabled", "false"},
      // loopback by default: the lab runs jobs in a network namespace with nothing but lo
      {"spark.driver.host", "127.0.0.1"},
      {"spark.driver.bindAddress", "127.0.0.1"},
      {"spark.sql.shuffle.partitions", "2"},
      {"spark.default.parallelism", "2"},
    };
    boolean hostGiven = System.getProperty("spark.driver.host") != null;
    for (String[] setting : defaults) {
      // a given driver host is also where the driver listens, unless a bind address is given
      boolean bind = setting[0].equals("spark.driver.bindAddress");
      if (System.getProperty(setting[0]) == null && !(bind && hostGiven)) {
        builder = builder.config(setting[0], setting[1]);
      }
    }
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    return spark;
  }

  static ObjectNode run(SparkSession spark, String model, Options options) {
    String input = options.require("input");
    long seed = options.getLong("seed", 42L);
    switch (model) {
      case "kmeans":
        {
          List<String> columns = options.requireList("columns");
          Dataset<Row> rows = readNumeric(spark, input, columns);
          return kmeans(
              rows,
              columns,
              (int) options.getLong("k", 0),
              (int) options.getLong("iterations", 20),
              seed);
        }
      case "logreg":
        {
          List<String> columns = options.requireList("columns");
          Dataset<Row> rows = readNumeric(spark, input, columns);
          return logisticRegression(
              rows,
              columns,
              (int) options.getLong("iterations", 100),
              options.getDouble("reg-param", 0.0),
              (int) options.getLong("test-percent", 30),
              seed);
        }
      case "naivebayes":
        return naiveBayes(
            readText(spark, input),
            options.getDouble("smoothing", 1.0),
            (int) options.getLong("num-features", 1 << 16),
            (int) options.getLong("test-percent", 30),
            seed);
      default:
        throw new IllegalArgumentException("unknown model '" + model + "'; " + USAGE);
    }
  }

  /** Rows `id|x1|x2|...`: the id as a long, every other column a double; Hive's NULL (\N) reads as 0. */
  static Dataset<Row> readNumeric(SparkSession spark, String input, List<String> columns) {
    List<StructField> fields = new ArrayList<>();
    fields.add(DataTypes.createStructField(columns.get(0), DataTypes.LongType, true));
    for (String column : columns.subList(1, columns.size())) {
      fields.add(DataTypes.createStructField(column, DataTypes.DoubleType, true));
    }
    Dataset<Row> rows = reader(spark).schema(DataTypes.createStructType(fields)).csv(input);
    return rows.na().fill(0.0);
  }

  /** Rows `id|label|text` (q28's reviews); text may hold commas and quotes, never '|'. */
  static Dataset<Row> readText(SparkSession spark, String input) {
    StructType schema =
        new StructType()
            .add("id", DataTypes.LongType, true)
            .add("label", DataTypes.DoubleType, true)
            .add("text", DataTypes.StringType, true);
    return reader(spark).schema(schema).csv(input).na().fill("", new String[] {"text"});
  }

  private static org.apache.spark.sql.DataFrameReader reader(SparkSession spark) {
    return spark
        .read()
        .option("sep", "|")
        .option("quote", "\u0000") // Hive writes no quoting: a '"' in a review is text
        .option("nullValue", "\\N")
        .option("mode", "FAILFAST"); // a short or non-numeric row fails the step, naming the row
  }

  /**
   * k-means over z-scored features (counts, ratios and amounts live on different scales; without
   * scaling the amounts alone would decide the clusters); centres are reported in input units.
   */
  static ObjectNode kmeans(Dataset<Row> rows, List<String> columns, int k, int iterations, long seed) {
    if (k < 2) {
      throw new IllegalArgumentException("kmeans needs --k of at least 2, got " + k);
    }
    List<String> features = columns.subList(1, columns.size());
    Dataset<Row> assembled = assemble(rows, features, "raw").cache();
    long count = assembled.count();
    if (count < k) {
      throw new IllegalArgumentException(
          "kmeans: " + count + " input rows, fewer than k = " + k + " clusters");
    }
    StandardScalerModel scaler =
        new StandardScaler()
            .setInputCol("raw")
            .setOutputCol("features")
            .setWithMean(true)
            .setWithStd(true)
            .fit(assembled);
    Dataset<Row> scaled = scaler.transform(assembled);
    KMeansModel model =
        new KMeans().setK(k).setMaxIter(iterations).setSeed(seed).setFeaturesCol("features").fit(scaled);
    long[] sizes = model.summary().clusterSizes();
    double[] mean = scaler.mean().toArray();
    double[] std = scaler.std().toArray();
    ObjectNode result = header("kmeans", count, seed);
    result.put("k", k);
    result.put("iterations", iterations);
    result.put("iterations_run", model.summary().numIter());
    result.put("cost", model.summary().trainingCost());
    putStrings(result.putArray("features"), features);
    ArrayNode clusters = result.putArray("clusters");
    Vector[] centres = model.clusterCenters();
    for (int cluster = 0; cluster < centres.length; cluster++) {
      ObjectNode node = clusters.addObject();
      node.put("cluster", cluster);
      node.put("size", sizes[cluster]);
      ArrayNode centre = node.putArray("centre");
      double[] scaledCentre = centres[cluster].toArray();
      for (int i = 0; i < scaledCentre.length; i++) {
        centre.add(scaledCentre[i] * std[i] + mean[i]);
      }
    }
    assembled.unpersist();
    return result;
  }

  /** Binary logistic regression (label 0/1), trained on one part of the rows and tested on the rest. */
  static ObjectNode logisticRegression(
      Dataset<Row> rows,
      List<String> columns,
      int iterations,
      double regParam,
      int testPercent,
      long seed) {
    String label = columns.get(1);
    List<String> features = columns.subList(2, columns.size());
    Dataset<Row> data =
        assemble(rows, features, "features").withColumn("label", functions.col(label)).cache();
    Dataset<Row>[] split = split(data, columns.get(0), testPercent, seed);
    Dataset<Row> train = split[0];
    Dataset<Row> test = split[1];
    long trainRows = train.count();
    long positives = train.filter("label = 1.0").count();
    if (trainRows == 0 || positives == 0 || positives == trainRows) {
      throw new IllegalArgumentException(
          "logreg: the training part needs both labels; it has "
              + trainRows
              + " rows, "
              + positives
              + " labelled 1");
    }
    LogisticRegressionModel model =
        new LogisticRegression().setMaxIter(iterations).setRegParam(regParam).fit(train);
    Dataset<Row> predictions = model.transform(test).cache();
    long[][] confusion = confusion(predictions, 2);
    ObjectNode result = header("logreg", data.count(), seed);
    result.put("iterations", iterations);
    result.put("reg_param", regParam);
    result.put("test_percent", testPercent);
    result.put("train_rows", trainRows);
    result.put("test_rows", predictions.count());
    putStrings(result.putArray("features"), features);
    ArrayNode coefficients = result.putArray("coefficients");
    for (double c : model.coefficients().toArray()) {
      coefficients.add(c);
    }
    result.put("intercept", model.intercept());
    long tp = confusion[1][1];
    long fp = confusion[0][1];
    long fn = confusion[1][0];
    putMetric(result, "precision", ratio(tp, tp + fp));
    putMetric(result, "recall", ratio(tp, tp + fn));
    putMetric(result, "accuracy", accuracy(confusion));
    result.put(
        "auc",
        predictions.isEmpty()
            ? Double.NaN
            : new BinaryClassificationEvaluator().setMetricName("areaUnderROC").evaluate(predictions));
    putConfusion(result, confusion);
    data.unpersist();
    predictions.unpersist();
    return result;
  }

  /**
   * Multinomial naive Bayes over hashed term frequencies weighted by IDF; classes are the label
   * numbers 0..n-1 the Hive step gave (q28: 0 negative, 1 neutral, 2 positive).
   */
  static ObjectNode naiveBayes(
      Dataset<Row> rows, double smoothing, int numFeatures, int testPercent, long seed) {
    Dataset<Row> tokens =
        new RegexTokenizer()
            .setInputCol("text")
            .setOutputCol("words")
            .setPattern("[^\\p{L}\\p{N}']+")
            .setToLowercase(true)
            .transform(rows);
    Dataset<Row> tf =
        new HashingTF().setInputCol("words").setOutputCol("tf").setNumFeatures(numFeatures).transform(tokens);
    Dataset<Row>[] split = split(tf.cache(), "id", testPercent, seed);
    Dataset<Row> train = split[0];
    Dataset<Row> test = split[1];
    long trainRows = train.count();
    if (trainRows == 0) {
      throw new IllegalArgumentException("naivebayes: no training rows");
    }
    // MLlib's naive Bayes numbers its classes by position among the labels it saw: a gap (no
    // row of class 1) would shift every later class, so the labels must run 0..n-1.
    List<Row> labels = train.select("label").distinct().orderBy("label").collectAsList();
    for (int i = 0; i < labels.size(); i++) {
      if (labels.get(i).isNullAt(0) || labels.get(i).getDouble(0) != i) {
        throw new IllegalArgumentException(
            "naivebayes: the training labels must be 0.." + (labels.size() - 1) + ", got " + labels);
      }
    }
    IDFModel idf = new IDF().setInputCol("tf").setOutputCol("features").fit(train);
    NaiveBayesModel model =
        new NaiveBayes().setSmoothing(smoothing).setModelType("multinomial").fit(idf.transform(train));
    Dataset<Row> predictions = model.transform(idf.transform(test)).cache();
    int classes = (int) Math.max(model.numClasses(), maxLabel(rows) + 1);
    long[][] confusion = confusion(predictions, classes);
    ObjectNode result = header("naivebayes", rows.count(), seed);
    result.put("smoothing", smoothing);
    result.put("num_features", numFeatures);
    result.put("test_percent", testPercent);
    result.put("train_rows", trainRows);
    result.put("test_rows", predictions.count());
    putMetric(result, "accuracy", accuracy(confusion));
    ArrayNode perClass = result.putArray("classes");
    double weightedPrecision = 0;
    double weightedRecall = 0;
    long tested = 0;
    for (int c = 0; c < classes; c++) {
      long actual = Arrays.stream(confusion[c]).sum();
      long predicted = 0;
      for (long[] row : confusion) {
        predicted += row[c];
      }
      double precision = ratio(confusion[c][c], predicted);
      double recall = ratio(confusion[c][c], actual);
      ObjectNode node = perClass.addObject();
      node.put("label", c);
      node.put("support", actual);
      putMetric(node, "precision", precision);
      putMetric(node, "recall", recall);
      if (actual > 0) {
        weightedPrecision += actual * (Double.isNaN(precision) ? 0 : precision);
        weightedRecall += actual * recall;
        tested += actual;
      }
    }
    putMetric(result, "precision", tested == 0 ? Double.NaN : weightedPrecision / tested);
    putMetric(result, "recall", tested == 0 ? Double.NaN : weightedRecall / tested);
    putConfusion(result, confusion);
    predictions.unpersist();
    return result;
  }

  /**
   * Train and test parts by a hash of the id and the seed: the same row lands on the same side
   * whatever the files' partitioning, and a different seed gives a different split.
   */
  @SuppressWarnings("unchecked")
  static Dataset<Row>[] split(Dataset<Row> data, String idColumn, int testPercent, long seed) {
    if (testPercent < 1 || testPercent > 99) {
      throw new IllegalArgumentException("--test-percent must be 1..99, got " + testPercent);
    }
    Column bucket =
        functions.pmod(functions.xxhash64(functions.col(idColumn), functions.lit(seed)), functions.lit(100));
    return new Dataset[] {
      data.filter(bucket.geq(testPercent)), data.filter(bucket.lt(testPercent))
    };
  }

  static long[][] confusion(Dataset<Row> predictions, int classes) {
    long[][] matrix = new long[classes][classes];
    for (Row row :
        predictions.groupBy("label", "prediction").count().collectAsList()) {
      int actual = (int) row.getDouble(0);
      int predicted = (int) row.getDouble(1);
      if (actual < 0 || actual >= classes || predicted < 0 || predicted >= classes) {
        throw new IllegalArgumentException(
            "label " + actual + " or prediction " + predicted + " outside 0.." + (classes - 1));
      }
      matrix[actual][predicted] += row.getLong(2);
    }
    return matrix;
  }

  private static double maxLabel(Dataset<Row> rows) {
    Row max = rows.agg(functions.max("label")).first();
    return max.isNullAt(0) ? 0 : max.getDouble(0);
  }

  static double accuracy(long[][] confusion) {
    long right = 0;
    long total = 0;
    for (int i = 0; i < confusion.length; i++) {
      for (int j = 0; j < confusion.length; j++) {
        total += confusion[i][j];
        if (i == j) {
          right += confusion[i][j];
        }
      }
    }
    return ratio(right, total);
  }

  /** NaN when the denominator is 0 (no positive predicted, no row of a class): written as null. */
  static double ratio(long numerator, long denominator) {
    return denominator == 0 ? Double.NaN : (double) numerator / denominator;
  }

  private static Dataset<Row> assemble(Dataset<Row> rows, List<String> features, String output) {
    if (features.isEmpty()) {
      throw new IllegalArgumentException("no feature columns");
    }
    return new VectorAssembler()
        .setInputCols(features.toArray(new String[0]))
        .setOutputCol(output)
        .transform(rows);
  }

  private static ObjectNode header(String model, long rows, long seed) {
    ObjectNode result = JSON.createObjectNode();
    result.put("format", "benchcamp-bigbench-ml/1");
    result.put("model", model);
    result.put("rows", rows);
    result.put("seed", seed);
    return result;
  }

  /** An undefined metric (0/0) is JSON null rather than Jackson's quoted "NaN". */
  private static void putMetric(ObjectNode node, String name, double value) {
    if (Double.isNaN(value)) {
      node.putNull(name);
    } else {
      node.put(name, value);
    }
  }

  private static void putStrings(ArrayNode array, List<String> values) {
    values.forEach(array::add);
  }

  private static void putConfusion(ObjectNode result, long[][] confusion) {
    ArrayNode matrix = result.putArray("confusion");
    for (long[] row : confusion) {
      ArrayNode line = matrix.addArray();
      for (long value : row) {
        line.add(value);
      }
    }
  }

  static void writeAtomically(Path output, String text) throws IOException {
    Path parent = output.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path partial = parent.resolve(output.getFileName() + ".partial");
    Files.writeString(partial, text, StandardCharsets.UTF_8);
    Files.move(partial, output, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static void fail(String message) {
    System.err.println(message);
    System.exit(2);
  }

  /** `--name value` pairs; an unknown or repeated name, or a name without value, is refused. */
  static final class Options {
    static final List<String> KNOWN =
        List.of(
            "input", "output", "columns", "k", "iterations", "seed", "reg-param", "test-percent",
            "smoothing", "num-features", "master");
    private final Map<String, String> values;

    private Options(Map<String, String> values) {
      this.values = values;
    }

    static Options parse(String[] args) {
      Map<String, String> values = new LinkedHashMap<>();
      for (int i = 0; i < args.length; i += 2) {
        String name = args[i];
        if (!name.startsWith("--") || !KNOWN.contains(name.substring(2))) {
          throw new IllegalArgumentException("unknown option '" + name + "'; " + USAGE);
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("option " + name + " needs a value");
        }
        if (values.put(name.substring(2), args[i + 1]) != null) {
          throw new IllegalArgumentException("option " + name + " given twice");
        }
      }
      return new Options(values);
    }

    String require(String name) {
      String value = values.get(name);
      if (value == null || value.isEmpty()) {
        throw new IllegalArgumentException("missing --" + name + "; " + USAGE);
      }
      return value;
    }

    String get(String name, String fallback) {
      return values.getOrDefault(name, fallback);
    }

    List<String> requireList(String name) {
      List<String> items = Arrays.asList(require(name).split(","));
      if (items.size() < 2 || items.stream().anyMatch(String::isBlank)) {
        throw new IllegalArgumentException("--" + name + " needs an id and at least one more column");
      }
      return items;
    }

    long getLong(String name, long fallback) {
      String value = values.get(name);
      try {
        return value == null ? fallback : Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--" + name + " must be an integer, got '" + value + "'");
      }
    }

    double getDouble(String name, double fallback) {
      String value = values.get(name);
      try {
        return value == null ? fallback : Double.parseDouble(value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--" + name + " must be a number, got '" + value + "'");
      }
    }
  }
}

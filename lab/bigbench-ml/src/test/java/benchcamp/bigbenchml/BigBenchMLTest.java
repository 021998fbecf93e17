package benchcamp.bigbenchml;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/** Each model on small files written like Hive's export ('|', \N for NULL), in one local session. */
public class BigBenchMLTest {
  private static SparkSession spark;
  private static Path dir;

  @BeforeClass
  public static void start() throws Exception {
    spark = BigBenchML.session("local[2]");
    dir = Files.createTempDirectory("bigbench-ml-test");
  }

  @AfterClass
  public static void stop() {
    spark.stop();
  }

  private static String export(String name, List<String> lines) throws Exception {
    Path folder = Files.createDirectories(dir.resolve(name));
    Files.write(folder.resolve("000000_0"), lines, StandardCharsets.UTF_8);
    return folder.toString();
  }

  private static BigBenchML.Options options(String... args) {
    return BigBenchML.Options.parse(args);
  }

  @Test
  public void kmeansFindsTwoSeparatedGroupsAndReportsCentresInInputUnits() throws Exception {
    List<String> lines = new ArrayList<>();
    Random random = new Random(1);
    for (int i = 0; i < 30; i++) {
      lines.add(i + "|" + (1 + random.nextDouble() * 0.1) + "|" + (100 + random.nextDouble()));
    }
    for (int i = 30; i < 50; i++) {
      lines.add(i + "|" + (5 + random.nextDouble() * 0.1) + "|\\N"); // NULL amount reads as 0
    }
    String input = export("kmeans", lines);
    ObjectNode result =
        BigBenchML.run(spark, "kmeans", options("--input", input, "--columns", "id,ratio,amount", "--k", "2", "--seed", "7"));
    assertEquals(50, result.get("rows").asLong());
    assertEquals(2, result.get("clusters").size());
    long small = Long.MAX_VALUE;
    for (JsonNode cluster : result.get("clusters")) {
      small = Math.min(small, cluster.get("size").asLong());
      double ratio = cluster.get("centre").get(0).asDouble();
      double amount = cluster.get("centre").get(1).asDouble();
      if (cluster.get("size").asLong() == 30) {
        assertEquals(1.05, ratio, 0.05);
        assertEquals(100.5, amount, 0.5);
      } else {
        assertEquals(5.05, ratio, 0.05);
        assertEquals(0.0, amount, 1e-9);
      }
    }
    assertEquals(20, small);
    ObjectNode again =
        BigBenchML.run(spark, "kmeans", options("--input", input, "--columns", "id,ratio,amount", "--k", "2", "--seed", "7"));
    assertEquals(result.get("clusters"), again.get("clusters"));
  }

  @Test
  public void kmeansRefusesMoreClustersThanRows() throws Exception {
    String input = export("tiny", List.of("1|1.0", "2|2.0"));
    IllegalArgumentException error =
        assertThrows(
            IllegalArgumentException.class,
            () -> BigBenchML.run(spark, "kmeans", options("--input", input, "--columns", "id,x", "--k", "3")));
    assertTrue(error.getMessage(), error.getMessage().contains("fewer than k = 3"));
  }

  @Test
  public void logisticRegressionLearnsASeparableLabel() throws Exception {
    List<String> lines = new ArrayList<>();
    Random random = new Random(2);
    for (int i = 0; i < 400; i++) {
      double clicks = random.nextInt(20);
      double noise = random.nextDouble();
      lines.add(i + "|" + (clicks >= 10 ? 1 : 0) + "|" + clicks + "|" + noise);
    }
    String input = export("logreg", lines);
    ObjectNode result =
        BigBenchML.run(spark, "logreg", options("--input", input, "--columns", "id,label,clicks,noise", "--test-percent", "25", "--iterations", "20"));
    assertEquals(400, result.get("rows").asLong());
    assertEquals(400, result.get("train_rows").asLong() + result.get("test_rows").asLong());
    assertTrue(result.get("test_rows").asLong() > 60 && result.get("test_rows").asLong() < 140);
    assertTrue(result.toString(), result.get("accuracy").asDouble() > 0.95);
    assertTrue(result.get("coefficients").get(0).asDouble() > 0);
    assertEquals(2, result.get("confusion").size());
  }

  private static List<String> reviews(int[] classes) {
    List<String> lines = new ArrayList<>();
    String[][] words = {
      {"awful", "broken", "hate", "refund", "poor"},
      {"okay", "average", "fine", "plain", "usual"},
      {"great", "excellent", "love", "perfect", "happy"}
    };
    Random random = new Random(3);
    for (int i = 0; i < 300; i++) {
      int label = classes[i % classes.length];
      String[] pool = words[label];
      String text =
          "The item, \"as described\", was " + pool[random.nextInt(5)] + " and " + pool[random.nextInt(5)] + ".";
      lines.add(i + "|" + label + "|" + text);
    }
    return lines;
  }

  @Test
  public void naiveBayesSeparatesNegativeNeutralAndPositiveReviews() throws Exception {
    String input = export("reviews", reviews(new int[] {0, 1, 2}));
    ObjectNode result =
        BigBenchML.run(spark, "naivebayes", options("--input", input, "--seed", "5", "--num-features", "1024"));
    assertEquals(300, result.get("rows").asLong());
    assertEquals(300, result.get("train_rows").asLong() + result.get("test_rows").asLong());
    assertEquals(1.0, result.get("accuracy").asDouble(), 1e-9);
    assertEquals(1.0, result.get("precision").asDouble(), 1e-9);
    assertEquals(3, result.get("classes").size());
    assertEquals(result.get("test_rows").asLong(), sum(result.get("confusion")));
  }

  private static long sum(JsonNode matrix) {
    long total = 0;
    for (JsonNode row : matrix) {
      for (JsonNode value : row) {
        total += value.asLong();
      }
    }
    return total;
  }

  @Test
  public void naiveBayesRefusesAGapInTheLabels() throws Exception {
    String input = export("gap", reviews(new int[] {0, 2}));
    IllegalArgumentException error =
        assertThrows(
            IllegalArgumentException.class,
            () -> BigBenchML.run(spark, "naivebayes", options("--input", input, "--num-features", "1024")));
    assertTrue(error.getMessage(), error.getMessage().contains("must be 0..1"));
  }

  @Test
  public void aMalformedRowFailsTheStep() throws Exception {
    String input = export("malformed", List.of("1|1.0", "2|not-a-number"));
    assertThrows(
        Exception.class,
        () -> BigBenchML.run(spark, "kmeans", options("--input", input, "--columns", "id,x", "--k", "2")));
  }

  @Test
  public void optionsAreChecked() {
    assertThrows(IllegalArgumentException.class, () -> options("--inptu", "x"));
    assertThrows(IllegalArgumentException.class, () -> options("--k", "2", "--k", "3"));
    assertThrows(IllegalArgumentException.class, () -> options("--k"));
    assertThrows(
        IllegalArgumentException.class,
        () -> BigBenchML.run(spark, "svm", options("--input", "x")));
    assertThrows(
        IllegalArgumentException.class,
        () -> options("--input", "x", "--k", "two").getLong("k", 0));
  }
}

package benchcamp.bigbench.text;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import opennlp.tools.sentdetect.SentenceDetectorME;
import opennlp.tools.sentdetect.SentenceModel;
import opennlp.tools.tokenize.SimpleTokenizer;
import opennlp.tools.util.Span;

/**
 * Sentences and tokens of review text. Sentences come from OpenNLP's pretrained English sentence
 * model (UD English-EWT, Maven Central's opennlp-models-sentdetect-en); tokens from OpenNLP's
 * rule-based SimpleTokenizer (runs of letters, of digits, of one repeated other character), which
 * text_reference.py reproduces exactly. One instance per UDF instance: the detector is not
 * thread-safe, the model is loaded once per JVM.
 */
public final class Sentences {
  private static SentenceModel model;

  private final SentenceDetectorME detector;

  public Sentences() {
    detector = new SentenceDetectorME(sharedModel());
  }

  /** The sentences of `text`, trimmed, empty ones left out. */
  public List<String> split(String text) {
    List<String> sentences = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return sentences;
    }
    for (Span span : detector.sentPosDetect(text)) {
      String sentence = span.getCoveredText(text).toString().trim();
      if (!sentence.isEmpty()) {
        sentences.add(sentence);
      }
    }
    return sentences;
  }

  /** Lower-cased SimpleTokenizer tokens: the form the word lists are matched in. */
  public static String[] tokens(String text) {
    String[] tokens = SimpleTokenizer.INSTANCE.tokenize(text);
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = tokens[i].toLowerCase(Locale.ROOT);
    }
    return tokens;
  }

  private static synchronized SentenceModel sharedModel() {
    if (model == null) {
      model = loadModel();
    }
    return model;
  }

  /** The model named by the model jar's model.properties (so a model upgrade needs no code change). */
  private static SentenceModel loadModel() {
    try (InputStream properties = Sentences.class.getResourceAsStream("/model.properties")) {
      if (properties == null) {
        throw new IllegalStateException("model.properties of opennlp-models-sentdetect-en is not in the jar");
      }
      Properties props = new Properties();
      props.load(properties);
      String name = props.getProperty("model.name");
      try (InputStream bin = Sentences.class.getResourceAsStream("/" + name)) {
        if (bin == null) {
          throw new IllegalStateException("sentence model " + name + " is not in the jar");
        }
        return new SentenceModel(bin);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot load the OpenNLP sentence model", e);
    }
  }
}

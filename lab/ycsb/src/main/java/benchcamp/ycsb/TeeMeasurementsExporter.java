package benchcamp.ycsb;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter;
import site.ycsb.measurements.exporter.MeasurementsExporter;
import site.ycsb.measurements.exporter.TextMeasurementsExporter;

/**
 * The stock text summary on stdout and the stock JSON array in the export file, from one run.
 * YCSB's Client writes its measurements to exactly one of them (the export file when one is set).
 */
public class TeeMeasurementsExporter implements MeasurementsExporter {
  private final MeasurementsExporter json;
  private final MeasurementsExporter text;

  public TeeMeasurementsExporter(OutputStream exportFile) throws IOException {
    json = new JSONArrayMeasurementsExporter(exportFile);
    // closing the text exporter must flush stdout, not close it
    text = new TextMeasurementsExporter(new FilterOutputStream(System.out) {
      @Override
      public void close() throws IOException {
        flush();
      }
    });
  }

  @Override
  public void write(String metric, String measurement, int value) throws IOException {
    text.write(metric, measurement, value);
    json.write(metric, measurement, value);
  }

  @Override
  public void write(String metric, String measurement, long value) throws IOException {
    text.write(metric, measurement, value);
    json.write(metric, measurement, value);
  }

  @Override
  public void write(String metric, String measurement, double value) throws IOException {
    text.write(metric, measurement, value);
    json.write(metric, measurement, value);
  }

  @Override
  public void close() throws IOException {
    try {
      text.close();
    } finally {
      json.close();
    }
  }
}

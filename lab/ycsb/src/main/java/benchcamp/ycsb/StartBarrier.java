package benchcamp.ycsb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Properties;
import java.util.stream.Stream;
import site.ycsb.DBException;

/**
 * Holds a YCSB client's threads, once their store is connected, until every client of the run is
 * connected too, so that several client processes started together also measure together.
 *
 * <p>A JVM and its store driver take seconds to start, at their own pace: two clients launched at
 * once on a loaded host began their operations 2.6 s apart in a 2 s run, and did not run together.
 * YCSB starts a thread's operations (and the throttle's schedule) right after the binding's
 * {@code init()}, which calls this last. Each client process writes {@code <pid>.ready} into the
 * folder {@code benchcamp.start.dir} and waits until {@code benchcamp.start.clients} such files are
 * there, at most {@code benchcamp.start.timeout_s} (120 s). Without {@code benchcamp.start.dir}
 * (one client) nothing waits.
 */
final class StartBarrier {
  static final String DIR = "benchcamp.start.dir";
  static final String CLIENTS = "benchcamp.start.clients";
  static final String TIMEOUT = "benchcamp.start.timeout_s";
  private static boolean passed;
  private static DBException failure;  // the other threads of a client whose wait failed fail at once

  private StartBarrier() {}

  /** Once per JVM: the first thread waits for the other clients, the process's other threads after it. */
  static synchronized void await(Properties properties) throws DBException {
    String dir = properties.getProperty(DIR);
    if (dir == null || passed) {
      return;
    }
    if (failure != null) {
      throw new DBException(failure.getMessage(), failure);
    }
    int clients;
    long timeoutS;
    try {
      clients = Integer.parseInt(properties.getProperty(CLIENTS, "1"));
      timeoutS = Long.parseLong(properties.getProperty(TIMEOUT, "120"));
    } catch (NumberFormatException e) {
      throw new DBException(CLIENTS + " and " + TIMEOUT + " must be whole numbers: " + e.getMessage(), e);
    }
    try {
      awaitClients(Paths.get(dir), Long.toString(ProcessHandle.current().pid()), clients, Duration.ofSeconds(timeoutS));
    } catch (DBException e) {
      failure = e;
      throw e;
    }
    passed = true;
  }

  /** Marks client {@code id} ready in {@code dir} and waits until {@code clients} are. */
  static void awaitClients(Path dir, String id, int clients, Duration timeout) throws DBException {
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve(id + ".ready"), id);
      long deadline = System.nanoTime() + timeout.toNanos();
      long ready;
      while ((ready = ready(dir)) < clients) {
        if (System.nanoTime() > deadline) {
          throw new DBException("only " + ready + " of " + clients + " YCSB clients connected within "
              + timeout.toSeconds() + " s (" + dir + "): the others failed or are still starting");
        }
        Thread.sleep(5);
      }
    } catch (IOException e) {
      throw new DBException("cannot mark this client ready in " + dir + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DBException("interrupted while waiting for the other YCSB clients", e);
    }
  }

  private static long ready(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(file -> file.getFileName().toString().endsWith(".ready")).count();
    }
  }
}

package benchcamp.ycsb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * there, at most {@code benchcamp.start.timeout_s} (120 s).
 *
 * <p>Clients on several hosts share no folder: with {@code benchcamp.start.address} ({@code
 * host:port}) the client given {@code benchcamp.start.serve=true} listens on that port (on all its
 * addresses), every other client connects to it (retrying until the timeout) and says it is
 * ready; once all are, the serving one answers each {@code go}. Without either property (one
 * client) nothing waits.
 */
final class StartBarrier {
  static final String DIR = "benchcamp.start.dir";
  static final String CLIENTS = "benchcamp.start.clients";
  static final String TIMEOUT = "benchcamp.start.timeout_s";
  static final String ADDRESS = "benchcamp.start.address";
  static final String SERVE = "benchcamp.start.serve";
  private static final String READY = "ready";
  private static final String GO = "go";
  private static boolean passed;
  private static DBException failure;  // the other threads of a client whose wait failed fail at once

  private StartBarrier() {}

  /** Once per JVM: the first thread waits for the other clients, the process's other threads after it. */
  static synchronized void await(Properties properties) throws DBException {
    String dir = properties.getProperty(DIR);
    String address = properties.getProperty(ADDRESS);
    if ((dir == null && address == null) || passed) {
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
      if (address != null) {
        awaitOverNetwork(address, Boolean.parseBoolean(properties.getProperty(SERVE, "false")), clients,
            Duration.ofSeconds(timeoutS));
      } else {
        awaitClients(Paths.get(dir), Long.toString(ProcessHandle.current().pid()), clients, Duration.ofSeconds(timeoutS));
      }
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

  /**
   * The barrier of clients on several hosts: {@code serve} (the first client) waits for the
   * {@code clients - 1} others to connect to {@code address}'s port and say ready, then lets all
   * go; any other client connects to {@code address} and waits for its go.
   */
  static void awaitOverNetwork(String address, boolean serve, int clients, Duration timeout) throws DBException {
    int colon = address.lastIndexOf(':');
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      throw new DBException(ADDRESS + " must be host:port, got '" + address + "'", e);
    }
    String host = address.substring(0, Math.max(colon, 0));
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      if (serve) {
        serve(port, clients, deadline, timeout, address);
      } else {
        join(host, port, deadline, timeout, address);
      }
    } catch (IOException e) {
      throw new DBException("the YCSB clients' start barrier at " + address + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DBException("interrupted while waiting for the other YCSB clients", e);
    }
  }

  private static int remainingMs(long deadline) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (deadline - System.nanoTime()) / 1_000_000L));
  }

  private static void serve(int port, int clients, long deadline, Duration timeout, String address)
      throws IOException, DBException {
    List<Socket> others = new ArrayList<>();
    try (ServerSocket server = new ServerSocket()) {
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(port));
      while (others.size() < clients - 1) {
        server.setSoTimeout(remainingMs(deadline));
        Socket other;
        try {
          other = server.accept();
        } catch (SocketTimeoutException e) {
          throw notAllCame(others.size() + 1, clients, timeout, address);
        }
        others.add(other);
        other.setSoTimeout(remainingMs(deadline));
        try {
          String line = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.US_ASCII)).readLine();
          if (!READY.equals(line)) {
            others.remove(other);
            other.close();  // not one of ours (a port scan, a stray connection): not counted
          }
        } catch (SocketTimeoutException e) {
          throw notAllCame(others.size(), clients, timeout, address);
        }
      }
      for (Socket other : others) {
        OutputStream out = other.getOutputStream();
        out.write((GO + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    } finally {
      for (Socket other : others) {
        other.close();
      }
    }
  }

  private static void join(String host, int port, long deadline, Duration timeout, String address)
      throws IOException, InterruptedException, DBException {
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), remainingMs(deadline));
        socket.setSoTimeout(remainingMs(deadline));
        OutputStream out = socket.getOutputStream();
        out.write((READY + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String line;
        try {
          line = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII)).readLine();
        } catch (SocketTimeoutException e) {
          throw new DBException("the first YCSB client (" + address + ") did not let this one start within "
              + timeout.toSeconds() + " s: the others failed or are still starting", e);
        }
        if (!GO.equals(line)) {
          throw new DBException("the first YCSB client (" + address + ") gave up waiting for the others");
        }
        return;
      } catch (ConnectException | SocketTimeoutException e) {
        if (System.nanoTime() > deadline) {
          throw new DBException("the first YCSB client's start barrier (" + address + ") did not answer within "
              + timeout.toSeconds() + " s: " + e.getMessage(), e);
        }
        Thread.sleep(50);  // it is still connecting to its store, or still starting
      }
    }
  }

  private static DBException notAllCame(int ready, int clients, Duration timeout, String address) {
    return new DBException("only " + ready + " of " + clients + " YCSB clients connected within "
        + timeout.toSeconds() + " s (barrier at " + address + "): the others failed or are still starting");
  }
}

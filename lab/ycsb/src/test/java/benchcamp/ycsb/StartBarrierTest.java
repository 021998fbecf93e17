package benchcamp.ycsb;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.DBException;

class StartBarrierTest {
  @Test
  void aClientWaitsUntilTheOtherIsReady(@TempDir Path dir) throws Exception {
    Thread other = new Thread(() -> {
      try {
        Thread.sleep(300);
        Files.writeString(dir.resolve("other.ready"), "other");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    long started = System.nanoTime();
    other.start();
    StartBarrier.awaitClients(dir, "this", 2, Duration.ofSeconds(30));
    other.join();
    assertTrue(System.nanoTime() - started >= 300_000_000L, "returned before the other client was ready");
    assertTrue(Files.exists(dir.resolve("this.ready")));
  }

  @Test
  void aClientThatNeverComesFailsTheWaitNamingTheCount(@TempDir Path dir) {
    DBException failure = assertThrows(DBException.class,
        () -> StartBarrier.awaitClients(dir, "this", 3, Duration.ofSeconds(1)));
    assertTrue(failure.getMessage().startsWith("only 1 of 3 YCSB clients connected within 1 s"), failure.getMessage());
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void clientsOnSeveralHostsStartWhenTheLastHasConnected() throws Exception {
    String address = "127.0.0.1:" + freePort();
    AtomicLong joined = new AtomicLong();
    Thread late = new Thread(() -> {
      try {
        Thread.sleep(300);  // the second client connects late; the first must wait for it
        StartBarrier.awaitOverNetwork(address, false, 3, Duration.ofSeconds(30));
        joined.set(System.nanoTime());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Thread early = new Thread(() -> {
      try {
        StartBarrier.awaitOverNetwork(address, false, 3, Duration.ofSeconds(30));  // before the server listens
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    early.start();
    late.start();
    long started = System.nanoTime();
    StartBarrier.awaitOverNetwork(address, true, 3, Duration.ofSeconds(30));
    long released = System.nanoTime();
    early.join(10_000);
    late.join(10_000);
    assertTrue(released - started >= 300_000_000L, "the first client went before the last one was ready");
    assertTrue(joined.get() > 0, "the late client was not let go");
  }

  @Test
  void aServingClientWhoseOthersNeverComeFailsNamingTheCount() throws Exception {
    String address = "127.0.0.1:" + freePort();
    DBException failure = assertThrows(DBException.class,
        () -> StartBarrier.awaitOverNetwork(address, true, 2, Duration.ofSeconds(1)));
    assertTrue(failure.getMessage().startsWith("only 1 of 2 YCSB clients connected within 1 s (barrier at " + address),
        failure.getMessage());
  }

  @Test
  void aClientWhoseFirstNeverListensFailsNamingTheAddress() throws Exception {
    String address = "127.0.0.1:" + freePort();
    DBException failure = assertThrows(DBException.class,
        () -> StartBarrier.awaitOverNetwork(address, false, 2, Duration.ofSeconds(1)));
    assertTrue(failure.getMessage().startsWith("the first YCSB client's start barrier (" + address + ") did not answer"),
        failure.getMessage());
  }

  @Test
  void aMalformedAddressIsRefused() {
    DBException failure = assertThrows(DBException.class,
        () -> StartBarrier.awaitOverNetwork("no-port", false, 2, Duration.ofSeconds(1)));
    assertTrue(failure.getMessage().contains("host:port"), failure.getMessage());
  }
}

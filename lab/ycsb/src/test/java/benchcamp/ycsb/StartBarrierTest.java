package benchcamp.ycsb;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
}

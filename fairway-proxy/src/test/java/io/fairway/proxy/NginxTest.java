package io.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The test fixture's nginx leaves nothing behind: the tests that kill a backend rely on it, and a
 * worker that outlives its test keeps listening on a port the next one may be given.
 */
class NginxTest {
  @BeforeAll
  static void nginx() {
    Nginx.require();
  }

  @Test
  void killLeavesNoWorkerListening() throws Exception {
    for (int i = 0; i < 30; i++) {
      Nginx n = new Nginx("n" + i);
      n.kill();
      try (Socket s = new Socket()) {
        s.connect(n.address(), 200);
        throw new AssertionError("nginx " + i + "'s port still accepts after kill()");
      } catch (java.io.IOException refused) {
        // nobody listens
      }
      // A respawned worker would hold the directory's log files open for good.
      int round = i;
      await()
          .atMost(Duration.ofSeconds(2))
          .untilAsserted(
              () ->
                  assertThat(n.holders())
                      .as("processes of nginx %d after kill()", round)
                      .isEmpty());
    }
  }
}

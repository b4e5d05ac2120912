package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.LimitStats;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * No limit configured, a backend that serves {@link #CAPACITY} connections at once and closes the
 * rest unserved, and {@link #CLIENTS} clients that each want {@link #SESSIONS} sessions and come
 * straight back when refused (as wrk does). Without a limit every client is let through and the
 * backend throws most connections away, so the clients burn refusal after refusal. With the learned
 * limit the proxy finds the capacity from the first refusals and the rest wait in the queue: once
 * it has learned, refusals are rare, and every session is served.
 */
class LearnedLimitStormTest {
  private static final int CAPACITY = 4;
  private static final int CLIENTS = 24;
  private static final int SESSIONS = 12;

  /** Attempts one session may make before the test gives up on it (bounds a broken proxy). */
  private static final int MAX_ATTEMPTS = 400;

  @AutoClose final Cleanup cleanup = new Cleanup();

  @Test
  void clientsWaitForTheCapacityTheProxyLearnedInsteadOfBeingThrownAway() throws Exception {
    CapacityServer backend = cleanup.track(new CapacityServer(CAPACITY, 15));
    ProxyTable t =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.builder()
                    .ioThreads(2)
                    .spliceThreshold(-1)
                    .connectTimeout(Duration.ofSeconds(20))
                    .build(),
                k -> ListenerSpec.tcp()));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "wlc"));
    t.addDest(k, dest(backend.address(), 1));
    InetSocketAddress vip = t.boundAddress(k);

    AtomicInteger done = new AtomicInteger();
    AtomicInteger refusedFirstHalf = new AtomicInteger();
    AtomicInteger refusedSecondHalf = new AtomicInteger();
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        results.add(
            clients.submit(
                () -> {
                  int ok = 0;
                  for (int s = 0; s < SESSIONS; s++) {
                    int attempts = 0;
                    while (!session(vip)) {
                      boolean late = done.get() >= CLIENTS * SESSIONS / 2;
                      (late ? refusedSecondHalf : refusedFirstHalf).incrementAndGet();
                      if (++attempts == MAX_ATTEMPTS) {
                        return ok;
                      }
                    }
                    done.incrementAndGet();
                    ok++;
                  }
                  return ok;
                }));
      }
      int ok = 0;
      for (Future<Integer> r : results) {
        ok += r.get(120, TimeUnit.SECONDS);
      }
      int sessions = CLIENTS * SESSIONS;
      LimitStats learned = t.limitStats().get(k).values().iterator().next();
      String what =
          "refused "
              + refusedFirstHalf
              + " then "
              + refusedSecondHalf
              + " client attempts; backend refused "
              + backend.refused
              + ", served at most "
              + backend.mostServedAtOnce
              + " at once; "
              + learned;
      System.out.println("LearnedLimitStormTest: " + what);
      assertThat(ok).as(what).isEqualTo(sessions);
      assertThat(learned.learned()).as(what).isBetween(1, CAPACITY + 1);
      // Learning costs refusals; after it, a probe past the capacity now and then.
      assertThat(refusedSecondHalf.get()).as(what).isLessThanOrEqualTo(sessions / 10);
      assertThat(backend.refused.get()).as(what).isLessThan(sessions);
    } finally {
      clients.shutdownNow();
    }
  }

  /** One session: a question and its answer. False when the connection ended unanswered. */
  private static boolean session(InetSocketAddress vip) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(vip, 5000);
      s.setSoTimeout(30_000);
      s.getOutputStream().write("ping\n".getBytes(StandardCharsets.US_ASCII));
      BufferedReader in =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      return "pong".equals(in.readLine());
    } catch (java.net.SocketException e) {
      return false; // reset: refused too
    }
  }
}

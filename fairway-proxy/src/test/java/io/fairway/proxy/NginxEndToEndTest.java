package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static io.fairway.proxy.Fixtures.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.Mode;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fairway in front of real nginx instances: requests keep flowing, without one failing, while a
 * backend is drained and restored, the table is changed as a reload would, and a backend dies.
 */
class NginxEndToEndTest {
  private final List<Nginx> nginx = new ArrayList<>();
  private ProxyTable table;
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  @BeforeEach
  void start() throws Exception {
    Nginx.require();
    for (int i = 1; i <= 3; i++) {
      nginx.add(new Nginx("n" + i));
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (table != null) {
      table.close();
    }
    nginx.forEach(Nginx::close);
  }

  @Test
  void httpUnderLoadSurvivesDrainReloadAndADeadBackend() throws Exception {
    runDrill(ListenerSpec.http(RequestKey.CLIENT));
  }

  @Test
  void tcpRelayUnderLoadSurvivesDrainReloadAndADeadBackend() throws Exception {
    // L4 cannot retry a request, but the JDK client only opens new connections between requests
    // here (the old ones were drained or closed), and connects to a dead backend go to the next.
    runDrill(ListenerSpec.tcp());
  }

  private void runDrill(ListenerSpec spec) throws Exception {
    table = new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> spec);
    ServiceKey k = anyPort();
    table.addService(Service.of(k, "wlc"));
    for (Nginx n : nginx) {
      table.addDest(k, dest(n.address(), 1));
    }
    InetSocketAddress vip = table.boundAddress(k);
    Map<String, Integer> seen = new ConcurrentHashMap<>();
    List<String> failures = new CopyOnWriteArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> load = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      // A client per thread, and a new one every 50 requests, so connections come and go.
      Thread t =
          new Thread(
              () -> {
                int n = 0;
                HttpClient c = client;
                while (!stop.get()) {
                  if (++n % 50 == 0) {
                    c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                  }
                  try {
                    HttpResponse<String> r =
                        c.send(
                            HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + vip.getPort() + "/"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200) {
                      seen.merge(r.body(), 1, Integer::sum);
                    } else {
                      failures.add("HTTP " + r.statusCode());
                    }
                  } catch (Exception e) {
                    failures.add(e.toString());
                  }
                }
              });
      t.start();
      load.add(t);
    }
    Nginx n1 = nginx.get(0);
    Nginx n3 = nginx.get(2);
    // Every phase lasts a number of answered requests, not a time, so a slow machine gives
    // each the same traffic: the load is flowing and has reached n1...
    IntSupplier answered =
        () -> seen.values().stream().mapToInt(Integer::intValue).sum() + failures.size();
    awaitAnswered(answered, 30);
    await().atMost(Duration.ofSeconds(30)).until(() -> seen.containsKey("n1"));
    table.setDest(k, dest(n1.address(), 0)); // drain
    awaitAnswered(answered, 30); // what was in flight to n1 has been answered
    int n1Before = seen.getOrDefault("n1", 0);
    awaitAnswered(answered, 60);
    int n1Drained = seen.getOrDefault("n1", 0) - n1Before;
    table.setDest(k, dest(n1.address(), 1)); // restore
    String[] scheds = {"rr", "wrr", "lc", "wlc", "sed"};
    for (int i = 0; i < 10; i++) { // ten reload-like diffs, with requests between them
      table.setService(Service.of(k, scheds[i % scheds.length]));
      table.setDest(k, dest(nginx.get(1).address(), 1 + i % 3));
      awaitAnswered(answered, 5);
    }
    // A backend dies; requests meet it until the checker would remove it, as apply does.
    n3.kill();
    awaitAnswered(answered, 10);
    table.delDest(k, key(n3.address()));
    awaitAnswered(answered, 30);
    stop.set(true);
    for (Thread t : load) {
      t.join(10_000);
    }
    System.out.println(
        spec.mode() + ": " + seen + ", n1 while drained " + n1Drained + ", failures " + failures);
    assertThat(seen.keySet()).contains("n1", "n2", "n3");
    if (spec.mode() == Mode.HTTP) {
      // Each request is scheduled: only one already in flight may still reach n1.
      assertThat(n1Drained).as("requests to n1 while drained").isLessThanOrEqualTo(3);
      assertThat(failures).as("failed requests").isEmpty();
    } else {
      // L4: only connections established to the killed nginx may fail (one per load thread).
      assertThat(failures.size()).as("failed requests: " + failures).isLessThanOrEqualTo(3);
    }
    assertThat(seen.values().stream().mapToInt(Integer::intValue).sum()).isGreaterThan(100);
  }

  /** Waits until {@code n} more requests have been answered (or have failed) than now. */
  private static void awaitAnswered(IntSupplier answered, int n) {
    int target = answered.getAsInt() + n;
    await().atMost(Duration.ofSeconds(30)).until(() -> answered.getAsInt() >= target);
  }
}

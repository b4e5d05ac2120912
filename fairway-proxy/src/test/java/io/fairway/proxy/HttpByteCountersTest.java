package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static io.fairway.proxy.Fixtures.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.DestEntry;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.Stats;
import io.fairway.testkit.HttpBackend;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * An HTTP service feeds the same per-server byte counters as an L4 one (what {@code
 * fairway_server_received_bytes_total} and {@code _sent_bytes_total} show): request heads and
 * bodies as they go to the server, response heads and bodies as they come from it.
 */
class HttpByteCountersTest {
  @AutoClose final Cleanup cleanup = new Cleanup();

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  @Test
  void requestAndResponseBytesAreCountedForTheServer() throws Exception {
    HttpBackend b1 = cleanup.track(new HttpBackend("b1"));
    ProxyTable t =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.defaults().toBuilder().ioThreads(2).build(),
                k -> ListenerSpec.http(RequestKey.CLIENT)));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(b1.address(), 1));
    InetSocketAddress vip = t.boundAddress(k);
    assertThat(stats(t, k, b1.address()).inBytes()).isZero();

    byte[] upload = new byte[300 * 1024];
    java.util.Arrays.fill(upload, (byte) 'u');
    HttpResponse<byte[]> echo =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip.getPort() + "/echo"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(upload))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(echo.body()).isEqualTo(upload);
    HttpResponse<byte[]> big =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip.getPort() + "/big?kb=512"))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(big.body()).hasSize(512 * 1024);

    // Bodies exactly, plus two request heads and two response heads of well under 1 KiB each.
    await()
        .atMost(Duration.ofSeconds(3))
        .untilAsserted(
            () -> {
              Stats st = stats(t, k, b1.address());
              assertThat(st.inBytes()).isBetween(300L * 1024 + 2 * 40, 300L * 1024 + 2 * 1024);
              assertThat(st.outBytes())
                  .isBetween((300L + 512) * 1024 + 2 * 30, (300L + 512) * 1024 + 2 * 1024);
            });
  }

  private static Stats stats(ProxyTable t, ServiceKey k, InetSocketAddress a) {
    DestEntry e =
        t.list().stream()
            .filter(s -> s.service().key().equals(k))
            .flatMap(s -> s.dests().stream())
            .filter(d -> d.dest().key().equals(key(a)))
            .findFirst()
            .orElseThrow();
    return e.stats();
  }
}

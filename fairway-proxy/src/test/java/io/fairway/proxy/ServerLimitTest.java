package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.PlannedLimits;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Dest;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.EchoServer;
import io.fairway.testkit.HttpBackend;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * A real server at its {@code uthreshold} with no sorry server: the next connection (L4) or request
 * (HTTP) waits for a slot, up to the service's connect timeout, instead of being refused at once;
 * then it is refused as before (L4: closed, HTTP: 503). Bounds are derived from the connect timeout
 * set here; the upper ones leave a loaded machine its scheduling slack.
 */
class ServerLimitTest {
  @AutoClose final Cleanup cleanup = new Cleanup();

  /** What a busy machine may add to a timer: the queue's own timers and the proxy's ticker. */
  private static final Duration SLACK = Duration.ofSeconds(2);

  /** How long a first connection may take on a cold JVM on a loaded machine. */
  private static final Duration COLD = Duration.ofSeconds(15);

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  private ProxyTable table(ProxyOptions o, ListenerSpec spec) {
    return cleanup.track(new ProxyTable(o.toBuilder().ioThreads(2).build(), k -> spec));
  }

  /** One real server taking one connection or request at a time. */
  private static InetSocketAddress serveOneAtATime(
      ProxyTable t, ServiceKey k, InetSocketAddress backend) throws Exception {
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(backend, 1, 1, 0));
    return t.boundAddress(k);
  }

  /** A proxy with the connect timeout {@code connect} before one HTTP real server. */
  private InetSocketAddress httpOneAtATime(HttpBackend b, Duration connect) throws Exception {
    ProxyTable t =
        table(
            ProxyOptions.builder().connectTimeout(connect).build(),
            ListenerSpec.http(RequestKey.CLIENT));
    return serveOneAtATime(t, anyPort(), b.address());
  }

  /** A proxy with the options {@code o} (no splicing) before one L4 real server. */
  private InetSocketAddress tcpOneAtATime(EchoServer b, ProxyOptions.Builder o) throws Exception {
    ProxyTable t = table(o.spliceThreshold(-1).build(), ListenerSpec.tcp());
    return serveOneAtATime(t, anyPort(), b.address());
  }

  /** A request that holds {@code b}'s one slot for {@code ms}, once {@code b} has it. */
  private CompletableFuture<HttpResponse<String>> holdTheSlot(
      InetSocketAddress vip, HttpBackend b, long ms) {
    CompletableFuture<HttpResponse<String>> r = get(vip, "/slow?ms=" + ms);
    await().atMost(Duration.ofSeconds(5)).until(() -> b.requests.get() == 1);
    return r;
  }

  /** A connection that holds the echo server b1's one slot, once it has it. */
  private static Socket holdTheSlot(InetSocketAddress vip) throws java.io.IOException {
    Socket s = new Socket();
    s.connect(vip, 2000);
    assertThat(line(s, COLD)).isEqualTo("b1");
    return s;
  }

  private CompletableFuture<HttpResponse<String>> get(InetSocketAddress vip, String path) {
    return http.sendAsync(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip.getPort() + path))
            .timeout(Duration.ofSeconds(15))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void httpRequestWaitsForTheSlotInsteadOfA503() throws Exception {
    HttpBackend b1 = cleanup.track(new HttpBackend("b1"));
    InetSocketAddress vip = httpOneAtATime(b1, Duration.ofSeconds(5));
    CompletableFuture<HttpResponse<String>> first = holdTheSlot(vip, b1, 500);
    CompletableFuture<HttpResponse<String>> second = get(vip, "/");
    HttpResponse<String> r2 = second.get();
    assertThat(r2.statusCode()).isEqualTo(200);
    assertThat(r2.body()).startsWith("b1");
    // It waited for the slow one: b1 never had two at once. (Not "the first client's future is
    // done": the two clients' responses complete on their own threads, in either order.)
    assertThat(b1.mostAtOnce.get()).as("requests b1 worked on at once").isEqualTo(1);
    assertThat(first.get().statusCode()).isEqualTo(200);
  }

  @Test
  void httpRequestGetsA503AfterTheConnectTimeoutWhenNoSlotFrees() throws Exception {
    HttpBackend b1 = cleanup.track(new HttpBackend("b1"));
    Duration connect = Duration.ofSeconds(1);
    InetSocketAddress vip = httpOneAtATime(b1, connect);
    CompletableFuture<HttpResponse<String>> slow =
        holdTheSlot(vip, b1, connect.multipliedBy(6).toMillis());
    long start = System.nanoTime();
    HttpResponse<String> r = get(vip, "/").get();
    Duration waited = Duration.ofNanos(System.nanoTime() - start);
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(waited).isBetween(connect.minusMillis(50), connect.plus(SLACK));
    assertThat(b1.requests.get()).isEqualTo(1);
    slow.cancel(true);
  }

  @Test
  void tcpConnectionWaitsForTheSlot() throws Exception {
    EchoServer b1 = cleanup.track(new EchoServer("b1"));
    // The slot frees when the first connection's inactive entry expires (1 s, plus up to a second
    // of bucketing and the expiry sweep), well within the wait allowed.
    Duration connect = Duration.ofSeconds(6);
    InetSocketAddress vip =
        tcpOneAtATime(
            b1,
            ProxyOptions.builder().connectTimeout(connect).inactiveExpiry(Duration.ofSeconds(1)));
    Socket c1 = holdTheSlot(vip);
    try (Socket c2 = new Socket()) {
      c2.connect(vip, 2000);
      c1.close();
      assertThat(line(c2, connect.plus(SLACK))).isEqualTo("b1");
    }
  }

  /**
   * {@code max_conns 1} instead of {@code uthreshold 1}: the slot frees the moment its holder
   * closes, although the closed connection stays inactive for the default minute, far longer than
   * the waiter may wait. And until then the waiter gets nothing of the server.
   */
  @Test
  void tcpConnectionTakesAMaxConnsSlotTheMomentItsHolderCloses() throws Exception {
    EchoServer b1 = cleanup.track(new EchoServer("b1"));
    Duration connect = Duration.ofSeconds(6);
    Dest d = dest(b1.address(), 1);
    ListenerSpec spec = PlannedLimits.of(ListenerSpec.tcp(), Map.of(d, 1));
    ProxyTable t =
        table(ProxyOptions.builder().connectTimeout(connect).spliceThreshold(-1).build(), spec);
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "wlc"));
    t.addDest(k, d);
    InetSocketAddress vip = t.boundAddress(k);
    assertThat(ProxyOptions.builder().build().inactiveExpiry()).isGreaterThan(connect.plus(SLACK));
    Socket c1 = holdTheSlot(vip);
    try (Socket c2 = new Socket()) {
      c2.connect(vip, 2000);
      c2.setSoTimeout(500);
      assertThatThrownBy(() -> c2.getInputStream().read())
          .as("a byte of the server while the slot is held")
          .isInstanceOf(SocketTimeoutException.class);
      c1.close();
      assertThat(line(c2, connect.plus(SLACK))).isEqualTo("b1");
      assertThat(b1.accepted.get()).isEqualTo(2);
    }
  }

  /**
   * The next line a connection gets (an EchoServer says its name first, then echoes), waiting at
   * most {@code d}.
   */
  private static String line(Socket s, Duration d) throws java.io.IOException {
    s.setSoTimeout((int) d.toMillis());
    return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
        .readLine();
  }

  @Test
  void tcpConnectionIsClosedAfterTheConnectTimeoutWhenNoSlotFrees() throws Exception {
    EchoServer b1 = cleanup.track(new EchoServer("b1"));
    Duration connect = Duration.ofSeconds(1);
    InetSocketAddress vip = tcpOneAtATime(b1, ProxyOptions.builder().connectTimeout(connect));
    try (Socket c1 = holdTheSlot(vip);
        Socket c2 = new Socket()) {
      c2.connect(vip, 2000);
      c2.setSoTimeout((int) connect.plus(SLACK).multipliedBy(2).toMillis());
      long start = System.nanoTime();
      assertThat(c2.getInputStream().read()).isEqualTo(-1);
      Duration waited = Duration.ofNanos(System.nanoTime() - start);
      assertThat(waited).isBetween(connect.minusMillis(50), connect.plus(SLACK));
      assertThat(c1.isClosed()).isFalse(); // the one holding the slot is left alone
      c1.getOutputStream().write("still here\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(line(c1, COLD)).isEqualTo("still here");
    }
  }
}

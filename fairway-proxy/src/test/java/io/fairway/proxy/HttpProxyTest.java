package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static io.fairway.proxy.Fixtures.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.HttpBackend;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP reverse proxy over loopback with small real HTTP backends. */
class HttpProxyTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  private HttpBackend b1;
  private HttpBackend b2;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  @BeforeEach
  void backends() throws IOException {
    b1 = cleanup.track(new HttpBackend("b1"));
    b2 = cleanup.track(new HttpBackend("b2"));
  }

  private ProxyTable table(ProxyOptions o, ListenerSpec spec) {
    return cleanup.track(new ProxyTable(o.toBuilder().ioThreads(2).build(), k -> spec));
  }

  private InetSocketAddress serve(ProxyTable t, ServiceKey k, HttpBackend... bs) throws Exception {
    t.addService(Service.of(k, "rr"));
    for (HttpBackend b : bs) {
      t.addDest(k, dest(b.address(), 1));
    }
    return t.boundAddress(k);
  }

  private HttpResponse<String> get(InetSocketAddress vip, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip.getPort() + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Sends raw bytes and reads until the proxy closes (or 3 s pass). */
  private static String raw(InetSocketAddress vip, String request) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(3000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      return readToClose(s.getInputStream());
    }
  }

  private static String readToClose(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    try {
      int n;
      while ((n = in.read(buf)) > 0) {
        out.write(buf, 0, n);
      }
    } catch (SocketTimeoutException e) {
      out.write("<timeout>".getBytes(StandardCharsets.US_ASCII));
    }
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void spreadsRequestsOverKeepAliveConnections() throws Exception {
    ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    InetSocketAddress vip = serve(t, anyPort(), b1, b2);
    Map<String, Integer> m = new HashMap<>();
    for (int i = 0; i < 20; i++) {
      HttpResponse<String> r = get(vip, "/");
      assertThat(r.statusCode()).isEqualTo(200);
      m.merge(r.body(), 1, Integer::sum);
    }
    assertThat(m).containsEntry("b1", 10).containsEntry("b2", 10);
  }

  @Test
  void anIpv4ServiceUsesIpv4SocketsBothWays() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Transport.EPOLL, "only epoll channels can be made IPv4 (Netty 4.2.18)");
    ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    InetSocketAddress vip = serve(t, anyPort(), b1);
    assertThat(get(vip, "/").statusCode()).isEqualTo(200);
    // The client's connection may be closed or kept; the listener and the pooled backend
    // connection are there either way.
    assertThat(Fixtures.socketsAt("tcp", true, vip)).isPositive();
    assertThat(Fixtures.socketsAt("tcp6", true, vip)).isZero();
    assertThat(Fixtures.socketsAt("tcp", false, b1.address())).isEqualTo(1);
    assertThat(Fixtures.socketsAt("tcp6", false, b1.address())).isZero();
  }

  @Test
  void forwardsClientAddressAndKeepsHost() throws Exception {
    ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    InetSocketAddress vip = serve(t, anyPort(), b1);
    String resp =
        raw(
            vip,
            "GET /headers HTTP/1.1\r\nHost: shop.example\r\nX-Forwarded-For: 10.9.9.9\r\nConnection: close, X-Secret\r\nX-Secret: hop\r\n\r\n");
    assertThat(resp).startsWith("HTTP/1.1 200");
    assertThat(resp)
        .contains("host: shop.example")
        .contains("x-forwarded-for: 10.9.9.9, 127.0.0.1");
    assertThat(resp).doesNotContain("x-secret");
  }

  @Test
  void streamsLargeBodiesBothWays() throws Exception {
    ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    InetSocketAddress vip = serve(t, anyPort(), b1);
    HttpResponse<byte[]> big =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip.getPort() + "/big?kb=4096"))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(big.body()).hasSize(4096 * 1024);
    byte[] upload = new byte[3 * 1024 * 1024];
    java.util.Arrays.fill(upload, (byte) 'u');
    HttpResponse<byte[]> echo =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip.getPort() + "/echo"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(upload))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(echo.body()).isEqualTo(upload);
  }

  @Test
  void conflictingContentLengthAndTransferEncodingIsRefused() throws Exception {
    ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    InetSocketAddress vip = serve(t, anyPort(), b1);
    String resp =
        raw(
            vip,
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(resp.toLowerCase(Locale.ROOT))
        .startsWith("http/1.1 400")
        .contains("connection: close")
        .doesNotContain("<timeout>");
    assertThat(b1.requests.get()).isZero();
  }

  @Test
  void unknownTransferEncodingIsRefused() throws Exception {
    ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    InetSocketAddress vip = serve(t, anyPort(), b1);
    String resp =
        raw(vip, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n");
    assertThat(resp).startsWith("HTTP/1.1 400");
    assertThat(b1.requests.get()).isZero();
  }

  @Test
  void tooLongHeadersAreRefused() throws Exception {
    ProxyTable t =
        table(
            ProxyOptions.builder().maxHeaderSize(1024).build(),
            ListenerSpec.http(RequestKey.CLIENT));
    InetSocketAddress vip = serve(t, anyPort(), b1);
    String resp = raw(vip, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(4000) + "\r\n\r\n");
    assertThat(resp).startsWith("HTTP/1.1 431").contains("too large").doesNotContain("<timeout>");
  }

  @Test
  void badChunkingIsRefused() throws Exception {
    ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    InetSocketAddress vip = serve(t, anyPort(), b1);
    String resp =
        raw(
            vip,
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n");
    assertThat(resp).startsWith("HTTP/1.1 400").doesNotContain("<timeout>");
  }

  @Test
  void clientThatNeverSendsIsClosedAndSlowHeadersGet408() throws Exception {
    ProxyTable t =
        table(
            ProxyOptions.builder().clientHeaderTimeout(Duration.ofMillis(500)).build(),
            ListenerSpec.http(RequestKey.CLIENT));
    InetSocketAddress vip = serve(t, anyPort(), b1);
    assertThat(raw(vip, "")).isEmpty();
    assertThat(raw(vip, "GET / HTTP/1.1\r\nHost: x\r\n")).startsWith("HTTP/1.1 408");
  }

  @Test
  void unreachableBackendIsSkippedThenA502() throws Exception {
    ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    InetSocketAddress dead = new InetSocketAddress(Fixtures.LO, Fixtures.deadPort());
    t.addDest(k, dest(dead, 1));
    t.addDest(k, dest(b1.address(), 1));
    for (int i = 0; i < 4; i++) {
      assertThat(get(t.boundAddress(k), "/").body()).isEqualTo("b1");
    }
    t.delDest(k, key(b1.address()));
    HttpResponse<String> r = get(t.boundAddress(k), "/");
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(r.body()).contains("fairway");
  }

  @Test
  void noServerIs503AndSorryServerTakesOver() throws Exception {
    HttpBackend sorry = cleanup.track(new HttpBackend("sorry"));
    ServiceKey k = anyPort();
    ProxyTable plain = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    plain.addService(Service.of(k, "rr"));
    assertThat(get(plain.boundAddress(k), "/").statusCode()).isEqualTo(503);

    ProxyTable t =
        table(
            ProxyOptions.defaults(),
            ListenerSpec.http(RequestKey.CLIENT).withSorryServer(sorry.address()));
    ServiceKey k2 = anyPort();
    InetSocketAddress vip = serve(t, k2, b1);
    t.setDest(k2, dest(b1.address(), 0));
    assertThat(get(vip, "/").body()).isEqualTo("sorry");
    t.setDest(k2, dest(b1.address(), 1));
    assertThat(get(vip, "/").body()).isEqualTo("b1");
  }

  @Test
  void slowBackendGets504() throws Exception {
    ProxyTable t =
        table(
            ProxyOptions.builder().backendResponseTimeout(Duration.ofMillis(300)).build(),
            ListenerSpec.http(RequestKey.CLIENT));
    InetSocketAddress vip = serve(t, anyPort(), b1);
    assertThat(get(vip, "/slow?ms=2000").statusCode()).isEqualTo(504);
    assertThat(get(vip, "/").statusCode()).isEqualTo(200);
  }

  @Test
  void drainLetsTheKeepAliveSessionContinueOnOtherServers() throws Exception {
    ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, b1, b2);
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(3000);
      // A slow request in flight on one server while it is drained still completes.
      s.getOutputStream()
          .write(
              "GET /slow?ms=500 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      await().atMost(Duration.ofSeconds(3)).until(() -> b1.requests.get() + b2.requests.get() == 1);
      HttpBackend busy = b1.requests.get() == 1 ? b1 : b2;
      HttpBackend other = busy == b1 ? b2 : b1;
      t.setDest(k, dest(busy.address(), 0));
      String first = readResponse(s.getInputStream());
      assertThat(first).startsWith("HTTP/1.1 200").endsWith(busy.name);
      for (int i = 0; i < 4; i++) {
        s.getOutputStream()
            .write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        assertThat(readResponse(s.getInputStream())).endsWith(other.name);
      }
    }
  }

  @Test
  void removalClosesAnExchangeInFlight() throws Exception {
    ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, b1);
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(3000);
      s.getOutputStream()
          .write(
              "GET /slow?ms=1500 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      await().atMost(Duration.ofSeconds(3)).until(() -> b1.requests.get() == 1); // in flight now
      t.delDest(k, key(b1.address()));
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void idempotentRequestIsRetriedOnceWhenAPooledConnectionDies() throws Exception {
    // A backend that closes every connection after one response without saying so: the next
    // request on the pooled connection fails, and the GET is retried on a fresh connection.
    try (RudeBackend rude = new RudeBackend()) {
      ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
      ServiceKey k = anyPort();
      t.addService(Service.of(k, "rr"));
      t.addDest(k, dest(rude.address(), 1));
      for (int i = 0; i < 5; i++) {
        HttpResponse<String> r = get(t.boundAddress(k), "/");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("rude");
      }
      assertThat(rude.swallowed.get())
          .as("requests that met a dead pooled connection")
          .isGreaterThanOrEqualTo(3);
    }
  }

  @Test
  void reloadLikeChangesUnderLoadFailNoRequest() throws Exception {
    ProxyTable t = table(ProxyOptions.defaults(), ListenerSpec.http(RequestKey.CLIENT));
    ServiceKey k = anyPort();
    InetSocketAddress vip = serve(t, k, b1, b2);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger ok = new AtomicInteger();
    List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Thread th =
          new Thread(
              () -> {
                while (!stop.get()) {
                  try {
                    HttpResponse<String> r = get(vip, "/");
                    if (r.statusCode() == 200) {
                      ok.incrementAndGet();
                    } else {
                      failures.add("status " + r.statusCode());
                    }
                  } catch (Exception e) {
                    failures.add(e.toString());
                  }
                }
              });
      th.start();
      threads.add(th);
    }
    String[] scheds = {"wlc", "lc", "rr", "wrr"};
    for (int i = 0; i < 10; i++) {
      // Each change lands between answered requests: a few more every round, however slow.
      int answered = ok.get() + failures.size();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> ok.get() + failures.size() >= answered + 8);
      t.setService(Service.of(k, scheds[i % scheds.length]));
      t.setDest(k, dest(b1.address(), 1 + i % 3));
      t.setDest(k, dest(b2.address(), i % 2)); // drained every other round
      t.setDest(k, dest(b2.address(), 1));
    }
    stop.set(true);
    for (Thread th : threads) {
      th.join(5000);
    }
    assertThat(failures).isEmpty();
    assertThat(ok.get()).isGreaterThan(50);
  }

  /** Reads one response with a Content-Length body from a keep-alive connection. */
  static String readResponse(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        throw new IOException("closed after " + head);
      }
      head.append((char) c);
    }
    int len = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        len = Integer.parseInt(line.substring(15).trim());
      }
    }
    byte[] body = in.readNBytes(len);
    return head + new String(body, StandardCharsets.ISO_8859_1);
  }
}

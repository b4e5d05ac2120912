package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fairway.config.model.ProxySettings;
import io.fairway.proxy.Fixtures.Conn;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.EchoServer;
import io.fairway.testkit.HttpBackend;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The per-service timeouts ({@code proxy_timeouts}), each short here; every bound is derived from
 * the configured timeout plus the ticker's period (a quarter of the shortest timeout, so the
 * deadline is seen at most that late) and a scheduling margin.
 */
class ProxyTimeoutsTest {
  private static final Duration MARGIN = Duration.ofSeconds(2);
  @AutoClose final Cleanup cleanup = new Cleanup();

  @AutoClose("shutdownNow")
  final ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();

  private HttpBackend b1;
  private ProxyTable table;

  @BeforeEach
  void setUp() throws IOException {
    b1 = cleanup.track(new HttpBackend("b1"));
    table =
        cleanup.track(
            new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> specs.get()));
  }

  private final AtomicReference<ListenerSpec> specs = new AtomicReference<>();

  private static ProxySettings.Timeouts none() {
    return ProxySettings.Timeouts.NONE;
  }

  private static ProxySettings.Timeouts with(String which, Duration d) {
    ProxySettings.Timeouts n = none();
    Optional<Duration> v = Optional.of(d);
    return new ProxySettings.Timeouts(
        which.equals("request_head") ? v : n.requestHead(),
        which.equals("request_body") ? v : n.requestBody(),
        n.requestBodyMinRate(),
        which.equals("connect") ? v : n.connect(),
        which.equals("first_byte") ? v : n.firstByte(),
        which.equals("keepalive") ? v : n.keepAlive(),
        which.equals("idle") ? v : n.idle(),
        which.equals("tunnel") ? v : n.tunnel());
  }

  private InetSocketAddress serve(ListenerSpec spec, InetSocketAddress backend) throws Exception {
    specs.set(spec);
    ServiceKey k = anyPort();
    table.addService(Service.of(k, "rr"));
    table.addDest(k, dest(backend, 1));
    return table.boundAddress(k);
  }

  private static Duration bound(Duration timeout) {
    return timeout.plus(timeout.dividedBy(4)).plus(MARGIN);
  }

  /** Reads what the proxy sends until it closes; the caller's Awaitility bounds how long. */
  private static String readToClose(Socket s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    InputStream in = s.getInputStream();
    byte[] buf = new byte[4096];
    int n;
    while ((n = in.read(buf)) > 0) {
      out.write(buf, 0, n);
    }
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void aTrickledBodyGets408AndFreesItsBackendConnection() throws Exception {
    Duration body = Duration.ofMillis(800);
    long minRate = 100;
    ProxySettings.Timeouts t = with("request_body", body);
    t =
        new ProxySettings.Timeouts(
            t.requestHead(),
            t.requestBody(),
            OptionalLong.of(minRate),
            t.connect(),
            t.firstByte(),
            t.keepAlive(),
            t.idle(),
            t.tunnel());
    InetSocketAddress vip =
        serve(ListenerSpec.http(RequestKey.CLIENT).withTimeouts(t), b1.address());
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(
          "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"
              .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      long start = System.nanoTime();
      // 10 bytes every 250 ms: 40 B/s, under the 100 B/s that earn more time. Each 10 bytes earn
      // 0.1 s, so the body runs out of time when t = 0.8 s + 0.04 * t * 10 ... t = body / (1 -
      // 40/100).
      pacer.scheduleAtFixedRate(
          () -> {
            try {
              out.write("0123456789".getBytes(StandardCharsets.ISO_8859_1));
              out.flush();
            } catch (IOException e) {
              // the proxy closed: what the test waits for
            }
          },
          0,
          250,
          TimeUnit.MILLISECONDS);
      Duration expected = Duration.ofNanos((long) (body.toNanos() / (1 - 40.0 / minRate)));
      AtomicReference<String> resp = new AtomicReference<>();
      await()
          .atMost(bound(expected))
          .until(
              () -> {
                resp.set(readToClose(s));
                return true;
              });
      assertThat(resp.get()).startsWith("HTTP/1.1 408");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(body);
    }
    // The backend's connection (it had half a body) is closed, not pooled or held for 300 s. The
    // proxy's connections to b1 are counted by their address in both files (io_uring's sockets are
    // IPv6) and only in this JVM: by port in /proc/net/tcp, another process's IPv4 connection to
    // another address with b1's port counted, and the proxy's own, on io_uring, did not.
    await()
        .atMost(MARGIN)
        .untilAsserted(
            () ->
                assertThat(Fixtures.connectionsTo(b1.address()))
                    .as(
                        "the proxy's connections to b1 (%s transport), %s after the 408",
                        Transport.name(), MARGIN)
                    .isEmpty());
  }

  @Test
  void aBodyAtAGoodRateHasAllTheTimeItNeeds() throws Exception {
    ProxySettings.Timeouts t = with("request_body", Duration.ofMillis(300));
    InetSocketAddress vip =
        serve(ListenerSpec.http(RequestKey.CLIENT).withTimeouts(t), b1.address());
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          "POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 40000\r\n\r\n"
              .getBytes(StandardCharsets.ISO_8859_1));
      // 8 slices of 5000 bytes, 150 ms apart: 1.05 s in all, far beyond 300 ms, but each slice
      // earns 10 s at the default 500 B/s.
      java.util.concurrent.atomic.AtomicInteger sent =
          new java.util.concurrent.atomic.AtomicInteger();
      pacer.scheduleAtFixedRate(
          () -> {
            if (sent.get() < 8) {
              try {
                out.write(new byte[5000]);
                out.flush();
              } catch (IOException e) {
                // seen as a short response below
              }
              sent.incrementAndGet();
            }
          },
          150,
          150,
          TimeUnit.MILLISECONDS);
      String resp = readToClose(s);
      assertThat(resp).startsWith("HTTP/1.1 200").containsIgnoringCase("Content-Length: 40000");
    }
  }

  /** Sends (the rest of) a request on {@code s} and reads its whole response. */
  private static String exchange(Socket s, String request) throws IOException {
    s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
    return HttpProxyTest.readResponse(s.getInputStream());
  }

  @Test
  void keepAliveAndRequestHeadAreSeparateAndPerService() throws Exception {
    Duration keepAlive = Duration.ofMillis(400);
    InetSocketAddress short1 =
        serve(
            ListenerSpec.http(RequestKey.CLIENT).withTimeouts(with("keepalive", keepAlive)),
            b1.address());
    ProxyTable other =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.builder().ioThreads(1).build(),
                k -> ListenerSpec.http(RequestKey.CLIENT)));
    ServiceKey k = anyPort();
    other.addService(Service.of(k, "rr"));
    other.addDest(k, dest(b1.address(), 1));
    InetSocketAddress dflt = other.boundAddress(k);
    String get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    try (Socket a = new Socket();
        Socket b = new Socket();
        Socket a2 = new Socket()) {
      for (Socket s : new Socket[] {a, b, a2}) {
        s.connect(s == b ? dflt : short1, 2000);
        s.setSoTimeout(30_000);
      }
      // b first: by the time a's keep-alive has run out, b has been idle longer than that.
      assertThat(exchange(b, get)).startsWith("HTTP/1.1 200");
      // The keep-alive clock starts once the response is out, so after this moment.
      long sent = System.nanoTime();
      assertThat(exchange(a, get)).startsWith("HTTP/1.1 200");
      await().atMost(bound(keepAlive)).until(() -> a.getInputStream().read() == -1);
      assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(keepAlive);
      // The other service keeps its idle client (15 s by default) for another keep-alive of the
      // short service's, by when that would have closed it.
      b.setSoTimeout((int) keepAlive.toMillis());
      assertThatThrownBy(() -> b.getInputStream().read())
          .isInstanceOf(java.net.SocketTimeoutException.class);
      // A request's first byte ends the keep-alive wait: its head has the request_head timeout
      // (15 s by default), so a client pausing inside it for twice the keep-alive is served.
      assertThat(exchange(a2, get)).startsWith("HTTP/1.1 200");
      a2.getOutputStream().write("GET / HTTP/1.1\r\n".getBytes(StandardCharsets.ISO_8859_1));
      Thread.sleep(keepAlive.multipliedBy(2).toMillis()); // the slow client under test
      assertThat(exchange(a2, "Host: x\r\n\r\n")).startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void aSlowRequestHeadGets408() throws Exception {
    Duration head = Duration.ofMillis(500);
    InetSocketAddress vip =
        serve(
            ListenerSpec.http(RequestKey.CLIENT).withTimeouts(with("request_head", head)),
            b1.address());
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(30_000);
      s.getOutputStream()
          .write("GET / HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.ISO_8859_1));
      AtomicReference<String> resp = new AtomicReference<>();
      await()
          .atMost(bound(head))
          .until(
              () -> {
                resp.set(readToClose(s));
                return true;
              });
      assertThat(resp.get()).startsWith("HTTP/1.1 408");
    }
  }

  @Test
  void firstByteTimeoutIs504() throws Exception {
    Duration first = Duration.ofMillis(400);
    InetSocketAddress vip =
        serve(
            ListenerSpec.http(RequestKey.CLIENT).withTimeouts(with("first_byte", first)),
            b1.address());
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(30_000);
      s.getOutputStream()
          .write(
              "GET /slow?ms=5000 HTTP/1.1\r\nHost: x\r\n\r\n"
                  .getBytes(StandardCharsets.ISO_8859_1));
      AtomicReference<String> resp = new AtomicReference<>();
      await()
          .atMost(bound(first))
          .until(
              () -> {
                resp.set(readToClose(s));
                return true;
              });
      assertThat(resp.get()).startsWith("HTTP/1.1 504");
    }
  }

  @Test
  void anL4ServiceHasItsOwnIdleTimeout() throws Exception {
    EchoServer echo = cleanup.track(new EchoServer("e1"));
    Duration idle = Duration.ofMillis(500);
    InetSocketAddress vip =
        serve(ListenerSpec.tcp().withTimeouts(with("idle", idle)), echo.address());
    Conn c = cleanup.track(new Conn(vip));
    assertThat(c.echo("hello")).isEqualTo("hello");
    c.socket.setSoTimeout(30_000);
    await().atMost(bound(idle)).until(() -> c.in.read() == -1);
  }

  @Test
  void aTunnelHasItsOwnIdleTimeout() throws Exception {
    UpgradeBackend b = cleanup.track(new UpgradeBackend(false));
    Duration tunnel = Duration.ofMillis(500);
    // The exchange idle timeout stays at 300 s: only the tunnel's applies once it is one.
    InetSocketAddress vip =
        serve(
            ListenerSpec.http(RequestKey.CLIENT).withTimeouts(with("tunnel", tunnel)), b.address());
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(30_000);
      s.getOutputStream()
          .write(
              "GET /chat HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n"
                  .getBytes(StandardCharsets.ISO_8859_1));
      String switched =
          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nHELLO";
      byte[] got = s.getInputStream().readNBytes(switched.length());
      assertThat(new String(got, StandardCharsets.ISO_8859_1)).isEqualTo(switched);
      await().atMost(bound(tunnel)).until(() -> s.getInputStream().read() == -1);
    }
  }

  @Test
  void aBackendConnectHasTheServicesTimeout() throws Exception {
    Duration connect = Duration.ofMillis(300);
    // A loopback listener that never accepts, its queue full: the kernel drops further SYNs, so a
    // connect to it hangs until the connect timeout (the default, 3 s, is beyond the bound).
    try (java.net.ServerSocket stuck = new java.net.ServerSocket(0, 1, Fixtures.LO)) {
      List<Socket> fill = new java.util.ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          Socket f = new Socket();
          try {
            f.connect(stuck.getLocalSocketAddress(), 200);
          } catch (IOException queueFull) {
            f.close();
            break;
          }
          fill.add(f);
        }
        InetSocketAddress vip =
            serve(
                ListenerSpec.http(RequestKey.CLIENT).withTimeouts(with("connect", connect)),
                (InetSocketAddress) stuck.getLocalSocketAddress());
        try (Socket s = new Socket()) {
          s.connect(vip, 2000);
          s.setSoTimeout(30_000);
          s.getOutputStream()
              .write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
          AtomicReference<String> resp = new AtomicReference<>();
          await()
              .atMost(connect.plus(MARGIN))
              .until(
                  () -> {
                    resp.set(readToClose(s));
                    return true;
                  });
          assertThat(resp.get()).startsWith("HTTP/1.1 502");
        }
      } finally {
        for (Socket f : fill) {
          f.close();
        }
      }
    }
  }

  @Test
  void proxyTimeoutsAndForwardedReachTheSpecFromThePlanOverTheTablesDefaults() throws Exception {
    String conf =
        "virtual_server 127.0.0.1 8080 {\n    lb_kind HTTP\n    http_forwarded\n"
            + "    proxy_timeouts {\n        request_body 5\n        tunnel 3600\n    }\n"
            + "    real_server 127.0.0.1 9001 {\n    }\n}\n";
    io.fairway.plan.ServicePlan sp =
        io.fairway.plan.PlanBuilder.build(
                io.fairway.config.KeepalivedConfig.parse(
                        "test.conf",
                        conf,
                        java.nio.file.Path.of("."),
                        io.fairway.config.ParseOptions.defaults())
                    .config())
            .services()
            .get(0);
    ListenerSpec spec = ListenerSpec.of(sp, sp.services().get(0).key());
    assertThat(spec.forwarded()).isTrue();
    ServiceTimeouts t = ServiceTimeouts.of(ProxyOptions.defaults(), spec.proxy().timeouts());
    assertThat(t.requestBody()).isEqualTo(Duration.ofSeconds(5));
    assertThat(t.tunnel()).isEqualTo(Duration.ofHours(1));
    assertThat(t.requestHead()).isEqualTo(ProxyOptions.defaults().clientHeaderTimeout());
    assertThat(t.idle()).isEqualTo(ProxyOptions.defaults().idleTimeout());
    assertThat(t.requestBodyMinRate()).isEqualTo(ServiceTimeouts.REQUEST_BODY_MIN_RATE);
  }
}

package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fairway.proxy.http.HttpFrontend;
import io.fairway.proxy.l4.TcpFrontend;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.HttpBackend;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Repeated warnings: once per kind and window, with counts, and bounded under a real outage. */
class RateLimitedLogTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  private final ListAppender<ILoggingEvent> events = new ListAppender<>();
  private Logger attached;

  private void capture(Class<?> c) {
    attached = (Logger) LoggerFactory.getLogger(c);
    events.start();
    attached.addAppender(events);
  }

  @AfterEach
  void detach() {
    if (attached != null) {
      attached.detachAppender(events);
    }
  }

  private List<String> warnings() {
    return events.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Test
  void eachKindOncePerWindowThenItsCount() {
    capture(RateLimitedLogTest.class);
    AtomicLong now = new AtomicLong();
    RateLimitedLog l =
        new RateLimitedLog(
            LoggerFactory.getLogger(RateLimitedLogTest.class),
            Duration.ofSeconds(10),
            now::get,
            false);
    for (int i = 0; i < 4712; i++) {
      l.warn("TCP 127.0.0.1:80", "connect to b1 failed: Connection refused", null);
    }
    l.warn("TCP 127.0.0.1:80", "no destination available", "GET /x from 10.0.0.1:5000");
    assertThat(warnings())
        .containsExactly(
            "TCP 127.0.0.1:80: connect to b1 failed: Connection refused",
            "TCP 127.0.0.1:80: no destination available: GET /x from 10.0.0.1:5000");
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    l.warn("TCP 127.0.0.1:80", "connect to b1 failed: Connection refused", null);
    assertThat(warnings())
        .last()
        .isEqualTo(
            "TCP 127.0.0.1:80: connect to b1 failed: Connection refused (and 4,711 more in the last 10 s)");
  }

  @Test
  void theSweepWritesCountsNoLaterOccurrenceCarriesAndForgetsQuietKinds() {
    capture(RateLimitedLogTest.class);
    AtomicLong now = new AtomicLong();
    RateLimitedLog l =
        new RateLimitedLog(
            LoggerFactory.getLogger(RateLimitedLogTest.class),
            Duration.ofSeconds(10),
            now::get,
            false);
    for (int i = 0; i < 3; i++) {
      l.warn("svc", "bad request: malformed request line", "from 10.0.0." + i + ":1");
    }
    l.sweep();
    assertThat(warnings()).hasSize(1); // the window is not over
    now.addAndGet(Duration.ofSeconds(11).toNanos());
    l.sweep();
    assertThat(warnings())
        .last()
        .isEqualTo(
            "svc: bad request: malformed request line: 2 more in the last 10 s (the last: from 10.0.0.2:1)");
    now.addAndGet(Duration.ofSeconds(25).toNanos());
    l.sweep(); // quiet for two windows: forgotten, so the next one is news again
    l.warn("svc", "bad request: malformed request line", "from 10.0.0.9:1");
    assertThat(warnings())
        .hasSize(3)
        .last()
        .isEqualTo("svc: bad request: malformed request line: from 10.0.0.9:1");
  }

  @Test
  void kindsAreBounded() {
    capture(RateLimitedLogTest.class);
    RateLimitedLog l =
        new RateLimitedLog(
            LoggerFactory.getLogger(RateLimitedLogTest.class),
            Duration.ofSeconds(10),
            () -> 0,
            false);
    for (int i = 0; i < RateLimitedLog.MAX_KINDS + 1000; i++) {
      l.warn("svc", "unsupported Transfer-Encoding: x" + i, null);
    }
    assertThat(warnings()).hasSize(RateLimitedLog.MAX_KINDS + 1);
    assertThat(warnings())
        .last()
        .asString()
        .startsWith("(other): further kinds of warning: svc: unsupported");
  }

  private static void request(InetSocketAddress vip) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(5000);
      s.getOutputStream()
          .write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      InputStream in = s.getInputStream();
      while (in.read() >= 0) {
        // to the proxy's close
      }
    }
  }

  @Test
  void aBackendOutageUnderLoadWritesABoundedNumberOfLines() throws Exception {
    capture(HttpFrontend.class);
    ProxyTable t =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.builder().ioThreads(1).build(),
                k -> ListenerSpec.http(RequestKey.CLIENT)));
    // An address of its own: the limiter is per service, and every other test's service is
    // 127.0.0.1:0.
    ServiceKey k =
        ServiceKey.of(
            io.fairway.table.Protocol.TCP, java.net.InetAddress.getByName("127.0.16.1"), 0);
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(new InetSocketAddress(Fixtures.LO, Fixtures.deadPort()), 1));
    InetSocketAddress vip = t.boundAddress(k);
    int requests = 400; // each one: a refused connect, then "every destination failed" and a 502
    for (int i = 0; i < requests; i++) {
      request(vip);
    }
    // Two kinds, each logged once (and summed up once later): without the limit, 800 lines.
    assertThat(warnings())
        .as(String.join("\n", warnings()))
        .hasSizeLessThanOrEqualTo(4)
        .anyMatch(w -> w.contains("connect to") && w.contains("failed"))
        .anyMatch(w -> w.contains("every destination failed"));
  }

  @Test
  void anL4BackendOutageUnderLoadWritesABoundedNumberOfLines() throws Exception {
    capture(TcpFrontend.class);
    ProxyTable t = cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), null));
    // An address of its own: the limiter is per service, and every other test's service is
    // 127.0.0.1:0.
    ServiceKey k =
        ServiceKey.of(
            io.fairway.table.Protocol.TCP, java.net.InetAddress.getByName("127.0.16.2"), 0);
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(new InetSocketAddress(Fixtures.LO, Fixtures.deadPort()), 1));
    InetSocketAddress vip = t.boundAddress(k);
    for (int i = 0; i < 400; i++) {
      try (Socket s = new Socket()) {
        s.connect(vip, 2000);
        s.setSoTimeout(5000);
        while (s.getInputStream().read() >= 0) {
          // to the proxy's close
        }
      }
    }
    assertThat(warnings())
        .as(String.join("\n", warnings()))
        .hasSizeLessThanOrEqualTo(4)
        .anyMatch(w -> w.contains("no destination available"));
  }

  private List<String> infos(String containing) {
    return events.list.stream()
        .filter(e -> e.getLevel() == Level.INFO)
        .map(ILoggingEvent::getFormattedMessage)
        .filter(m -> m.contains(containing))
        .toList();
  }

  @Test
  void aFloodOfSlowClientsWritesABoundedNumberOfInfoLines() throws Exception {
    capture(HttpFrontend.class);
    HttpBackend b = cleanup.track(new HttpBackend("b1"));
    io.fairway.config.model.ProxySettings.Timeouts head =
        new io.fairway.config.model.ProxySettings.Timeouts(
            java.util.Optional.of(Duration.ofMillis(300)),
            java.util.Optional.empty(),
            java.util.OptionalLong.empty(),
            java.util.Optional.empty(),
            java.util.Optional.empty(),
            java.util.Optional.empty(),
            java.util.Optional.empty(),
            java.util.Optional.empty());
    ProxyTable t =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.builder().ioThreads(1).build(),
                k -> ListenerSpec.http(RequestKey.CLIENT).withTimeouts(head)));
    // An address of its own: the limiter is per service, and every other test's service is
    // 127.0.0.1:0.
    ServiceKey k =
        ServiceKey.of(
            io.fairway.table.Protocol.TCP, java.net.InetAddress.getByName("127.0.16.3"), 0);
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(b.address(), 1));
    InetSocketAddress vip = t.boundAddress(k);
    List<Socket> slow = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < 200; i++) { // a slowloris: part of a head each, then nothing
        Socket s = new Socket();
        s.connect(vip, 2000);
        s.setSoTimeout(10_000);
        s.getOutputStream()
            .write("GET / HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.ISO_8859_1));
        slow.add(s);
      }
      for (Socket s : slow) {
        assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1))
            .startsWith("HTTP/1.1 408");
      }
    } finally {
      for (Socket s : slow) {
        s.close();
      }
    }
    // 200 lines before; now the first, and the rest counted (their summary comes with the window).
    assertThat(infos("no complete request head")).hasSize(1);
  }
}

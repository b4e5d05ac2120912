package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;

import io.fairway.config.model.ProxySettings;
import io.fairway.config.model.TlsSettings;
import io.fairway.config.model.base.Location;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.HttpBackend;
import io.fairway.testkit.TestCerts;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * The HTTP/2 tests' proxy: one HTTP virtual server on a loopback port of its own, in front of one
 * {@link HttpBackend} ("b1"), its listener's {@code tls} block the test's.
 *
 * @param vip where the virtual server listens
 */
record H2Proxy(ProxyTable table, InetSocketAddress vip, HttpBackend backend) {
  /** Starts one; the table and the backend are closed with {@code cleanup}. */
  static H2Proxy start(Cleanup cleanup, TlsSettings tls) throws Exception {
    HttpBackend backend = cleanup.track(new HttpBackend("b1"));
    ListenerSpec spec =
        ListenerSpec.http(RequestKey.CLIENT).withProxy(ProxySettings.DEFAULTS.withTls(tls));
    ProxyTable table =
        cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> spec));
    ServiceKey k = anyPort();
    table.addService(Service.of(k, "rr"));
    table.addDest(k, dest(backend.address(), 1));
    return new H2Proxy(table, table.boundAddress(k), backend);
  }

  /** {@code tls { alpn h2 }} without a certificate: a plain listener that also speaks h2c. */
  static TlsSettings h2c() {
    return new TlsSettings(
        List.of(), TlsSettings.DEFAULT_PROTOCOLS, List.of("h2"), Optional.empty());
  }

  /** A TLS listener with {@code cert}, ALPN left to its default (h2 and http/1.1). */
  static TlsSettings tls(TestCerts.Pair cert) {
    return new TlsSettings(
        List.of(
            new TlsSettings.Certificate(
                new Location("test.conf", 4), cert.cert().toString(), cert.key().toString(), "d")),
        TlsSettings.DEFAULT_PROTOCOLS,
        List.of(),
        Optional.empty());
  }

  /** The table's HTTP/2 counters. */
  io.fairway.proxy.http2.H2Stats h2() {
    return table.h2Stats();
  }

  /** The plain listener's URL without a path. */
  String base() {
    return "http://127.0.0.1:" + vip.getPort();
  }
}

package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.config.model.ProxySettings;
import io.fairway.config.model.TlsSettings;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.proxy.tls.ServerTls;
import io.fairway.proxy.tls.TlsStats;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.HttpBackend;
import io.fairway.testkit.TestCerts;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 1,000 clients that open a TCP connection to a TLS listener and never send a ClientHello: each
 * costs a bounded amount of memory while it waits (no TLS engine and no buffer before a ClientHello
 * arrives), a real client is served meanwhile, and every one of them is closed by the listener's
 * {@code handshake_timeout}, no sooner, and counted as such.
 */
class TlsSilentClientsTest {
  static final int SILENT = 1_000;

  /**
   * Heap kept per silent connection, both of its ends included (the client's socket lives in this
   * JVM too): what was measured is a few KiB (docs/notes/tls.md), an engine and its buffers per
   * connection would be several times this.
   */
  static final long HEAP_PER_CONNECTION = 16 * 1024;

  /** Pooled direct memory the 1,000 may take together: no read buffer is held for them. */
  static final long DIRECT_FOR_ALL = 8L * 1024 * 1024;

  /** {@code handshake_timeout 5}: half the default, so that it is seen to be the one used. */
  static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);

  @AutoClose final Cleanup cleanup = new Cleanup();
  @TempDir static Path dir;
  static TestCerts.Pair a;

  @BeforeAll
  static void certs() throws Exception {
    a = TestCerts.make(dir, "a", TestCerts.Kind.EC_PKCS8, "a.test", "a.test");
  }

  /** The heap in use once a collection has run: what is still reachable, near enough. */
  static long heapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  static long direct() {
    return PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
  }

  @Test
  void silentClientsAreBoundedAndTimedOutWhileARealClientIsServed() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    HttpBackend backend = cleanup.track(new HttpBackend("b1"));
    TlsSettings plain = TlsTerminationTest.settings(a);
    TlsSettings tls =
        new TlsSettings(
            plain.certificates(),
            plain.protocols(),
            plain.alpn(),
            plain.ticketKeys(),
            Optional.of(HANDSHAKE_TIMEOUT));
    ListenerSpec spec =
        ListenerSpec.http(RequestKey.CLIENT).withProxy(ProxySettings.DEFAULTS.withTls(tls));
    ProxyTable t =
        cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> spec));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(backend.address(), 1));
    InetSocketAddress vip = t.boundAddress(k);
    TlsStats stats = t.tlsStats();
    long timedOutBefore = stats.failures(TlsStats.Failure.TIMEOUT);

    long heapBefore = heapAfterGc();
    long directBefore = direct();
    List<Socket> silent = new ArrayList<>(SILENT);
    long firstConnect = System.nanoTime();
    try {
      for (int i = 0; i < SILENT; i++) {
        Socket s = new Socket();
        silent.add(s);
        s.connect(vip, 2000);
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> t.openConnections() >= SILENT);
      long heapPer = (heapAfterGc() - heapBefore) / SILENT;
      long directAll = direct() - directBefore;
      System.out.printf(
          "TlsSilentClientsTest: %d silent TLS connections: heap %d B each (both ends), pooled"
              + " direct %d B for all%n",
          SILENT, heapPer, directAll);
      assertThat(heapPer).isLessThan(HEAP_PER_CONNECTION);
      assertThat(directAll).isLessThan(DIRECT_FOR_ALL);

      String served =
          TlsTerminationTest.run(
              "curl",
              "-s",
              "--max-time",
              "10",
              "--cacert",
              a.cert().toString(),
              "--resolve",
              "a.test:" + vip.getPort() + ":127.0.0.1",
              "https://a.test:" + vip.getPort() + "/");
      assertThat(served)
          .as("a real client among the silent ones")
          .contains("b1")
          .contains("exit=0");

      // Before the data plane's default timeout: the listener's handshake_timeout is what ends
      // them, and not before it had run out.
      Duration allowed =
          Duration.ofMillis(ServerTls.HANDSHAKE_TIMEOUT_MILLIS)
              .minus(Duration.ofNanos(System.nanoTime() - firstConnect));
      await()
          .atMost(allowed)
          .until(() -> stats.failures(TlsStats.Failure.TIMEOUT) - timedOutBefore >= SILENT);
      assertThat(Duration.ofNanos(System.nanoTime() - firstConnect))
          .isGreaterThanOrEqualTo(HANDSHAKE_TIMEOUT);
      for (Socket s : silent) {
        assertThat(closedByPeer(s)).as("closed by the handshake timeout").isTrue();
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> t.openConnections() == 0);
      assertThat(backend.requests.get()).as("only the real client reached a server").isEqualTo(1);
    } finally {
      for (Socket s : silent) {
        s.close();
      }
    }
  }

  /** Whether the peer closed {@code s}: end of stream (or a reset) within 5 s, no byte. */
  static boolean closedByPeer(Socket s) throws IOException {
    s.setSoTimeout(5000);
    try {
      return s.getInputStream().read() == -1;
    } catch (SocketException reset) {
      return true;
    }
  }
}

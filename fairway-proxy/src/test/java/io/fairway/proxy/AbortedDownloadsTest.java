package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Clients that reset their downloads while others download whole: every whole download must arrive
 * complete and in order. Aborts close client channels while their backends still stream and free
 * descriptor numbers that new connections take at once, which is where a relay could hand one
 * client another connection's bytes or end its stream early. On epoll the relay splices every byte
 * here (the Netty splice keeps its pipe on the client's channel and reuses its number).
 */
class AbortedDownloadsTest {
  @AutoClose final Cleanup cleanup = new Cleanup();

  @Test
  void abortedDownloadsNeverLeakIntoOtherConnections() throws Exception {
    BlobServer blob = cleanup.track(new BlobServer());
    ProxyTable t =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.builder().spliceThreshold(0).ioThreads(2).build(), k -> null));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(blob.address(), 1));
    InetSocketAddress vip = t.boundAddress(k);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong whole = new AtomicLong();
    AtomicLong aborted = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(12);
    List<Future<?>> jobs = new ArrayList<>();
    long end = System.nanoTime() + 10_000_000_000L;
    for (int j = 0; j < 12; j++) {
      boolean aborter = j % 3 != 0;
      jobs.add(
          pool.submit(
              () -> {
                while (!stop.get() && System.nanoTime() < end) {
                  if (aborter) {
                    abort(vip);
                    aborted.incrementAndGet();
                  } else {
                    whole(vip, 256 << 10);
                    whole.incrementAndGet();
                  }
                }
                return null;
              }));
    }
    try {
      for (Future<?> f : jobs) {
        f.get();
      }
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertThat(whole.get()).isPositive();
    assertThat(aborted.get()).isPositive();
  }

  private static void abort(InetSocketAddress vip) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(10000);
      s.getOutputStream().write("4000000 close\n".getBytes(StandardCharsets.US_ASCII));
      InputStream in = s.getInputStream();
      byte[] buf = new byte[65536];
      int want = ThreadLocalRandom.current().nextInt(1, 100_000);
      for (int got = 0; got < want; ) {
        int r = in.read(buf);
        if (r < 0) {
          break;
        }
        got += r;
      }
      s.setSoLinger(true, 0);
    }
  }

  private static void whole(InetSocketAddress vip, long n) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(10000);
      s.getOutputStream().write((n + " close\n").getBytes(StandardCharsets.US_ASCII));
      String what = "port " + s.getLocalPort() + ": ";
      assertThat(BlobServer.readBlob(s.getInputStream(), n, what)).as(what).isEqualTo(n);
    }
  }
}

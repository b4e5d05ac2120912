package io.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.table.DestKey;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableException;
import io.fairway.table.TableOp;
import io.fairway.testkit.EchoServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * {@link ProxyTable#apply(List)} publishes each service's pool once per batch instead of once per
 * destination, and a {@link ProxyTable#hold} once at its release. That must not change what any
 * operation does: each gets the result one call gets, the table ends the same, and a server the
 * batch removes loses its connections as a single delete makes it lose them.
 */
class ProxyTableBatchTest {
  @AutoClose final Cleanup cleanup = new Cleanup();

  private static final ServiceKey[] SERVICES = {
    ServiceKey.of(Protocol.TCP, ip("127.0.0.1"), 0),
    ServiceKey.of(Protocol.TCP, ip("127.0.0.2"), 0),
    ServiceKey.of(Protocol.UDP, ip("127.0.0.3"), 0),
  };
  private static final String[] SCHEDULERS = {
    "rr", "wrr", "sh", "mh", "wlc", "round_robin", "nosuch"
  };

  @Test
  void aBatchGivesEveryOperationTheResultOfOneCallAndEndsInTheSameTable() throws Exception {
    ProxyTable batched =
        cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), null));
    ProxyTable single =
        cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), null));
    for (long seed = 1; seed <= 20; seed++) {
      Random r = new Random(seed);
      for (int round = 0; round < 4; round++) {
        List<TableOp> ops = ops(r, 10 + r.nextInt(60));
        List<TableException> results = batched.apply(ops);
        assertThat(results).hasSize(ops.size());
        for (int i = 0; i < ops.size(); i++) {
          String expected;
          try {
            ops.get(i).applyTo(single);
            expected = "ok";
          } catch (TableException e) {
            expected = e.reason() + " " + e.getMessage();
          }
          TableException got = results.get(i);
          assertThat(got == null ? "ok" : got.reason() + " " + got.getMessage())
              .as("seed %d round %d op %d: %s", seed, round, i, ops.get(i))
              .isEqualTo(expected);
        }
        assertThat(contents(batched))
            .as("seed %d round %d: the table", seed, round)
            .isEqualTo(contents(single));
      }
      batched.flush();
      single.flush();
    }
  }

  @Test
  void aServerRemovedInABatchLosesItsConnectionsAndGetsNoNewOnes() throws Exception {
    EchoServer b1 = cleanup.track(new EchoServer("b1"));
    EchoServer b2 = cleanup.track(new EchoServer("b2"));
    ProxyTable t = cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), null));
    ServiceKey k = SERVICES[0];
    t.addService(Service.of(k, "fo"));
    assertThat(
            t.apply(
                List.of(
                    new TableOp.AddDest(k, dest(b1.address(), 2)),
                    new TableOp.AddDest(k, dest(b2.address(), 1)))))
        .containsOnlyNulls();
    InetSocketAddress vip = t.boundAddress(k);
    try (Socket held = new Socket()) {
      held.connect(vip, 2000);
      held.setSoTimeout(3000);
      assertThat(greeting(held)).isEqualTo("b1");
      assertThat(
              t.apply(
                  List.of(
                      new TableOp.DelDest(
                          k, new DestKey(b1.address().getAddress(), b1.address().getPort())),
                      new TableOp.SetDest(k, dest(b2.address(), 3)))))
          .containsOnlyNulls();
      await().atMost(Duration.ofSeconds(10)).until(() -> closedByPeer(held));
    }
    try (Socket next = new Socket()) {
      next.connect(vip, 2000);
      next.setSoTimeout(3000);
      assertThat(greeting(next)).isEqualTo("b2");
    }
  }

  @Test
  void aHoldAnswersEachOperationWhenMadeAndPublishesAtTheRelease() throws Exception {
    EchoServer b1 = cleanup.track(new EchoServer("b1"));
    EchoServer b2 = cleanup.track(new EchoServer("b2"));
    ProxyTable t = cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), null));
    ServiceKey k = SERVICES[0];
    t.addService(Service.of(k, "fo"));
    t.addDest(k, dest(b1.address(), 2));
    t.addDest(k, dest(b2.address(), 1));
    InetSocketAddress vip = t.boundAddress(k);
    DestKey first = new DestKey(b1.address().getAddress(), b1.address().getPort());
    try (Socket held = new Socket()) {
      held.connect(vip, 2000);
      held.setSoTimeout(10_000);
      assertThat(greeting(held)).isEqualTo("b1");

      assertThat(t.hold()).isTrue();
      t.delDest(k, first);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> t.delDest(k, first))
          .as("refused when made, not at the release")
          .isInstanceOf(TableException.class)
          .hasMessageContaining("no destination");
      assertThat(t.apply(List.of(new TableOp.SetDest(k, dest(b2.address(), 1)))))
          .as("a batch joins the hold")
          .containsOnlyNulls();
      assertThat(t.list().get(0).dests()).as("the table as changed").hasSize(1);
      try (Socket during = new Socket()) {
        during.connect(vip, 2000);
        during.setSoTimeout(10_000);
        assertThat(greeting(during))
            .as("new connections see the pool as published")
            .isEqualTo("b1");
      }
      assertThat(closedByPeer(held)).isFalse();

      t.release();
      await().atMost(Duration.ofSeconds(10)).until(() -> closedByPeer(held));
    }
    try (Socket next = new Socket()) {
      next.connect(vip, 2000);
      next.setSoTimeout(10_000);
      assertThat(greeting(next)).isEqualTo("b2");
    }
  }

  private static String greeting(Socket s) throws IOException {
    StringBuilder b = new StringBuilder();
    InputStream in = s.getInputStream();
    for (int c = in.read(); c != '\n' && c >= 0; c = in.read()) {
      b.append((char) c);
    }
    return b.toString();
  }

  private static boolean closedByPeer(Socket s) throws IOException {
    s.setSoTimeout(200);
    try {
      return s.getInputStream().read() < 0;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  /**
   * Random operations over three loopback services, so adds collide, deletes miss and thresholds
   * invert.
   */
  private static List<TableOp> ops(Random r, int n) {
    List<TableOp> ops = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ServiceKey k = SERVICES[r.nextInt(SERVICES.length)];
      int kind = r.nextInt(100);
      if (kind < 12) {
        ops.add(new TableOp.AddService(Service.of(k, SCHEDULERS[r.nextInt(SCHEDULERS.length)])));
      } else if (kind < 18) {
        ops.add(new TableOp.SetService(Service.of(k, SCHEDULERS[r.nextInt(SCHEDULERS.length)])));
      } else if (kind < 20) {
        ops.add(new TableOp.DelService(k));
      } else if (kind < 60) {
        ops.add(new TableOp.AddDest(k, randomDest(r)));
      } else if (kind < 80) {
        ops.add(new TableOp.SetDest(k, randomDest(r)));
      } else {
        ops.add(new TableOp.DelDest(k, randomDest(r).key()));
      }
    }
    return ops;
  }

  private static Dest randomDest(Random r) {
    int port = r.nextInt(20) == 0 ? 0 : 9000 + r.nextInt(2);
    int upper = r.nextInt(4) == 0 ? r.nextInt(5) : 0;
    int lower = r.nextInt(4) == 0 ? r.nextInt(5) : 0;
    return new Dest(
        ip("127.0.1." + (1 + r.nextInt(5))),
        port,
        ForwardingMethod.MASQ,
        r.nextInt(4),
        upper,
        lower,
        null);
  }

  private static Dest dest(InetSocketAddress a, int weight) {
    return Dest.of(a.getAddress(), a.getPort(), weight);
  }

  /**
   * Services with their settings and destinations with theirs, in a stable order (counters left
   * out).
   */
  private static Map<String, List<String>> contents(ProxyTable t) throws TableException {
    TreeMap<String, List<String>> m = new TreeMap<>();
    for (ServiceEntry e : t.list()) {
      List<String> dests = new ArrayList<>();
      for (DestEntry d : e.dests()) {
        Dest x = d.dest();
        dests.add(x + " " + x.upperThreshold() + "/" + x.lowerThreshold());
      }
      Service s = e.service();
      m.put(s + " " + s.flags() + " " + s.netmask(), dests);
    }
    return m;
  }

  private static InetAddress ip(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}

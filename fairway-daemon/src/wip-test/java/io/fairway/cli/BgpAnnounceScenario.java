package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The steps the BGP tests run on a {@link BgpLab}: the router's next hops, agreement across nodes,
 * a node withdrawn when its real servers fail and back when they return, {@code fairway announce
 * off|on}, and SIGTERM under load. Bounds are preconditions on a loaded machine, not timing claims.
 */
final class BgpAnnounceScenario {
  /** JVMs and BGP sessions starting on a machine shared with other suites. */
  static final Duration START = Duration.ofSeconds(240);

  /** A withdrawal or return: checks (1 s), the drift timer, BIRD's scan and the session. */
  static final Duration CHANGE = Duration.ofSeconds(60);

  private static final Set<Integer> ALL = Set.of(1, 2, 3);

  private final BgpLab lab;

  BgpAnnounceScenario(BgpLab lab) {
    this.lab = lab;
  }

  void awaitHops(Set<Integer> nodes, Duration within) {
    await()
        .atMost(within)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              for (int i = 0; i < lab.fairways.size(); i++) {
                if (!lab.fairways.get(i).alive() && nodes.contains(i + 1)) {
                  throw new AssertionError(
                      "fairway on node " + (i + 1) + " exited:\n" + lab.fairways.get(i).log());
                }
              }
              assertThat(lab.nextHops()).as("the router's next hops to the VIP").isEqualTo(nodes);
            });
  }

  /** Requests every key several times: all answered, each key by one real server via any node. */
  void agreement() throws Exception {
    List<String> keys = new ArrayList<>();
    for (int round = 0; round < 4; round++) {
      for (int k = 0; k < 300; k++) {
        keys.add(Integer.toString(k));
      }
    }
    List<BgpLab.Reply> replies = send(keys);
    assertThat(replies).allSatisfy(r -> assertThat(r.ok()).as(r.toString()).isTrue());
    Map<String, Set<String>> servers = new HashMap<>();
    Map<String, Set<Integer>> nodes = new HashMap<>();
    for (BgpLab.Reply r : replies) {
      servers.computeIfAbsent(r.key(), k -> new HashSet<>()).add(r.realServer());
      nodes.computeIfAbsent(r.key(), k -> new HashSet<>()).add(r.node());
    }
    assertThat(nodes.values().stream().flatMap(Set::stream).distinct().sorted().toList())
        .as("the router spreads the connections over every node")
        .containsExactly(1, 2, 3);
    assertThat(servers)
        .allSatisfy((key, rs) -> assertThat(rs).as("key %s's real servers", key).hasSize(1));
    long acrossNodes = nodes.values().stream().filter(s -> s.size() > 1).count();
    assertThat(acrossNodes).as("keys that reached more than one node").isGreaterThan(150);
    assertThat(servers.values().stream().flatMap(Set::stream).distinct().count())
        .as("shard uses every real server")
        .isEqualTo(3);
  }

  /** Every request answered, none by {@code absent}. */
  void allServedWithout(int absent) throws Exception {
    List<String> keys = new ArrayList<>();
    for (int k = 0; k < 200; k++) {
      keys.add("x" + k);
    }
    List<BgpLab.Reply> replies = send(keys);
    assertThat(replies)
        .allSatisfy(
            r -> {
              assertThat(r.ok()).as(r.toString()).isTrue();
              assertThat(r.node()).as(r.toString()).isNotEqualTo(absent);
            });
  }

  /** Node n's real servers become unreachable from it: withdrawn; reachable again: back. */
  void realServersFail(int n) throws Exception {
    lab.ipIn(n, "route", "add", "prohibit", "10.97.0.0/24");
    awaitHops(without(n), CHANGE);
    assertThat(lab.announces(n)).isFalse();
    assertThat(lab.admin(n, "/metrics")).contains("fairway_announced{address=\"192.0.2.10\"} 0.0");
    allServedWithout(n);
    lab.ipIn(n, "route", "del", "prohibit", "10.97.0.0/24");
    awaitHops(ALL, CHANGE);
    assertThat(lab.admin(n, "/metrics")).contains("fairway_announced{address=\"192.0.2.10\"} 1.0");
  }

  /** {@code fairway announce off}: withdrawn, kept so across SIGHUP; {@code on}: back. */
  void announceOffAndOn(int n) throws Exception {
    assertThat(lab.fairwayCli(n, "announce", "off")).isZero();
    awaitHops(without(n), CHANGE);
    assertThat(lab.admin(n, "/status")).contains("announce: off");
    assertThat(lab.admin(n, "/api/v1/announce")).contains("\"enabled\":false");
    allServedWithout(n);
    int reloads = count(lab.fairways.get(n - 1).log(), "reloaded ");
    lab.fairways.get(n - 1).signal("HUP");
    await().atMost(CHANGE).until(() -> count(lab.fairways.get(n - 1).log(), "reloaded ") > reloads);
    // Several drift passes after the reload: still withdrawn.
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .until(() -> !lab.announces(n));
    assertThat(lab.fairwayCli(n, "announce", "on")).isZero();
    awaitHops(ALL, CHANGE);
    assertThat(lab.admin(n, "/status")).contains("announce: on, table 100");
  }

  /** A route someone deleted comes back at the next drift pass. */
  void driftRepaired(int n) throws Exception {
    lab.ipIn(n, "route", "del", BgpLab.VIP + "/32", "table", "100", "proto", "250");
    await().atMost(CHANGE).pollInterval(Duration.ofMillis(100)).until(() -> lab.announces(n));
    awaitHops(ALL, CHANGE);
  }

  /**
   * SIGTERM to node n while clients send: its route goes first, the router moves new flows, the
   * node drains and exits 0, and no request fails throughout.
   */
  void sigtermUnderLoad(int n) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger ok = new AtomicInteger();
    ConcurrentLinkedQueue<BgpLab.Reply> failed = new ConcurrentLinkedQueue<>();
    ExecutorService pool = lab.clientThreads(4);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    List<Future<?>> load = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int thread = t;
      load.add(
          pool.submit(
              () -> {
                for (int i = 0; i < 50_000 && !stop.get() && System.nanoTime() < deadline; i++) {
                  BgpLab.Reply r = BgpLab.get("t" + thread + "-" + i);
                  if (r.ok()) {
                    ok.incrementAndGet();
                  } else {
                    failed.add(r);
                  }
                }
              }));
    }
    try {
      await().atMost(CHANGE).until(() -> ok.get() > 100 || !failed.isEmpty());
      lab.fairways.get(n - 1).signal("TERM");
      awaitHops(without(n), CHANGE);
      assertThat(lab.fairways.get(n - 1).awaitExit(Duration.ofSeconds(90))).isZero();
      int after = ok.get();
      await().atMost(CHANGE).until(() -> ok.get() > after + 200 || !failed.isEmpty());
    } finally {
      stop.set(true);
      pool.shutdown();
      pool.awaitTermination(60, TimeUnit.SECONDS);
    }
    assertThat(failed).as("requests that failed under SIGTERM").isEmpty();
    assertThat(lab.fairways.get(n - 1).log()).contains("announce: withdrew 192.0.2.10");
    assertThat(lab.announces(n)).isFalse();
  }

  private List<BgpLab.Reply> send(List<String> keys) throws Exception {
    ExecutorService pool = lab.clientThreads(8);
    try {
      List<Future<BgpLab.Reply>> fs = new ArrayList<>();
      for (String k : keys) {
        fs.add(pool.submit(() -> BgpLab.get(k)));
      }
      List<BgpLab.Reply> out = new ArrayList<>();
      for (Future<BgpLab.Reply> f : fs) {
        out.add(f.get(120, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  private static Set<Integer> without(int n) {
    Set<Integer> s = new HashSet<>(ALL);
    s.remove(n);
    return s;
  }

  private static int count(String text, String what) {
    int c = 0;
    for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
      c++;
    }
    return c;
  }
}

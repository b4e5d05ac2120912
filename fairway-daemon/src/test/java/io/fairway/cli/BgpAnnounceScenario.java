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
import java.util.stream.Collectors;

/**
 * The steps the BGP tests run on a {@link BgpLab}: the router's next hops, agreement across nodes,
 * a node withdrawn when its real servers fail and back when they return, {@code fairway announce
 * off|on}, and SIGTERM under load. Bounds are preconditions on a loaded machine, not timing claims.
 */
final class BgpAnnounceScenario {
  /** JVMs and BGP sessions starting on a machine shared with other suites. */
  static final Duration START = Duration.ofMinutes(4);

  /** A withdrawal or return: checks (1 s), the drift timer, BIRD's scan and the session. */
  static final Duration CHANGE = Duration.ofSeconds(60);

  private static final Set<Integer> ALL = Set.of(1, 2, 3);

  /** Client threads sending during {@link #sigtermUnderLoad}. */
  private static final int THREADS = 4;

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
              assertThat(lab.nextHops())
                  .as(
                      () ->
                          "the router's next hops to the VIP; its routing daemon has:\n"
                              + lab.routerState())
                  .isEqualTo(nodes);
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
    assertThat(replies.stream().filter(r -> !r.ok()).toList())
        .as("failed requests of %d", replies.size())
        .isEmpty();
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

  /** A request of {@link #sigtermUnderLoad}: which client thread sent it, and when (nanoTime). */
  record Timed(BgpLab.Reply reply, int thread, long start, long end) {
    boolean overlaps(long from, long to) {
      return start <= to && end >= from;
    }

    /** A connection the router moved to a node that never saw it begin: reset, not refused. */
    boolean reset() {
      String e = reply.error();
      return e != null && (e.contains("Connection reset") || e.contains("Broken pipe"));
    }
  }

  /**
   * SIGTERM to node n while clients send: its route goes first, the router moves new flows, the
   * node drains and exits 0. No request that began after the router dropped node n fails, nor any
   * that ended before the SIGTERM; none is refused (a new flow reaching the closed listener). The
   * router's plain ECMP route (hash-threshold) moves the flows in flight at the moment its route
   * changes: node n's, and a share of the other nodes' (the hash regions shift), and the nodes they
   * land on answer with a reset (measured in docs/notes/bgp-lab.md). So a request in flight across
   * the route change may fail with a reset, at most one per client thread, as only one is in flight
   * per thread when the route changes.
   */
  void sigtermUnderLoad(int n) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger ok = new AtomicInteger();
    ConcurrentLinkedQueue<Timed> failed = new ConcurrentLinkedQueue<>();
    ExecutorService pool = lab.clientThreads(THREADS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      pool.submit(
          () -> {
            for (int i = 0; i < 50_000 && !stop.get() && System.nanoTime() < deadline; i++) {
              long start = System.nanoTime();
              BgpLab.Reply r = BgpLab.get("t" + thread + "-" + i);
              if (r.ok()) {
                ok.incrementAndGet();
              } else {
                failed.add(new Timed(r, thread, start, System.nanoTime()));
              }
            }
          });
    }
    long term;
    long gone;
    int after;
    try {
      await().atMost(CHANGE).until(() -> ok.get() > 100);
      term = System.nanoTime();
      lab.fairways.get(n - 1).signal("TERM");
      awaitHops(without(n), CHANGE);
      gone = System.nanoTime();
      assertThat(lab.fairways.get(n - 1).awaitExit(Duration.ofSeconds(90))).isZero();
      after = ok.get();
      await().atMost(CHANGE).until(() -> ok.get() > after + 200);
    } finally {
      stop.set(true);
      pool.shutdown();
      pool.awaitTermination(60, TimeUnit.SECONDS);
    }
    System.out.printf(
        "sigterm: %d requests answered, %d answered after node %d exited, %d failed: %s%n",
        ok.get(), ok.get() - after, n, failed.size(), failed);
    assertThat(failed)
        .as("requests that failed other than by a reset in flight across the route change")
        .allSatisfy(
            f -> {
              assertThat(f.reset()).as(f.toString()).isTrue();
              assertThat(f.overlaps(term, gone)).as(f.toString()).isTrue();
            });
    assertThat(failed.stream().map(Timed::thread).toList())
        .as("at most one request per client thread is in flight when the route changes")
        .doesNotHaveDuplicates();
    assertThat(lab.fairways.get(n - 1).log()).contains("announce: withdrew 192.0.2.10");
    assertThat(lab.announces(n)).isFalse();
  }

  /**
   * The IPv6 VIP through the router: one next hop per node in {@code nodes} (those whose BIRD has
   * the IPv6 session), and requests to it answered through each of them.
   */
  void ipv6(Set<Integer> nodes) throws Exception {
    await()
        .atMost(CHANGE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(lab.nextHops6())
                    .as(() -> "the router's next hops to the IPv6 VIP; " + lab.routerState())
                    .isEqualTo(nodes));
    List<String> keys = new ArrayList<>();
    for (int k = 0; k < 150; k++) {
      keys.add("v6-" + k);
    }
    List<BgpLab.Reply> replies = send(BgpLab.VIP6, keys);
    assertThat(replies.stream().filter(r -> !r.ok()).toList())
        .as("failed requests to [%s]:80 of %d", BgpLab.VIP6, replies.size())
        .isEmpty();
    assertThat(replies.stream().map(BgpLab.Reply::node).collect(Collectors.toSet()))
        .as("the nodes that answered over IPv6")
        .isEqualTo(nodes);
  }

  private List<BgpLab.Reply> send(List<String> keys) throws Exception {
    return send(BgpLab.VIP, keys);
  }

  private List<BgpLab.Reply> send(String vip, List<String> keys) throws Exception {
    ExecutorService pool = lab.clientThreads(8);
    try {
      List<Future<BgpLab.Reply>> fs = new ArrayList<>();
      for (String k : keys) {
        fs.add(pool.submit(() -> BgpLab.get(vip, k)));
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

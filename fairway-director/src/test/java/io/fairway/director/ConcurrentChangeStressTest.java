package io.fairway.director;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.director.varnish.FallbackDirector;
import io.fairway.director.varnish.HashDirector;
import io.fairway.director.varnish.RandomDirector;
import io.fairway.director.varnish.RoundRobinDirector;
import io.fairway.director.varnish.ShardDirector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pickers race a writer that flips health, weights and membership. The writer keeps an invariant in
 * every snapshot it publishes: at least one "a" or "b" member is up, "x" members are always down,
 * and "z" is up with weight 0. A pick that read half of one change and half of another could return
 * a down or zero-weight member, or nothing; none may ever happen.
 */
class ConcurrentChangeStressTest {

  static AbstractDirector<?> director(String kind) {
    return switch (kind) {
      case "round_robin" -> new RoundRobinDirector("d");
      case "fallback" -> new FallbackDirector("d", true, null);
      case "random" -> new RandomDirector("d");
      case "hash" -> new HashDirector("d");
      case "shard" -> new ShardDirector("d");
      default -> throw new IllegalArgumentException(kind);
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"round_robin", "fallback", "random", "hash", "shard", "layered"})
  void picksNeverSeeATornState(String kind) throws Exception {
    AbstractDirector<?> d;
    AbstractDirector<?> inner = null;
    if (kind.equals("layered")) {
      // a fallback over a shard: the inner director's health flips reach the outer snapshot
      inner = new ShardDirector("inner");
      d = new FallbackDirector("outer");
      d.add(Member.of(inner));
      d.add(Member.of(Backend.named("spare")).withHealth(false, 0));
    } else {
      d = director(kind);
    }
    AbstractDirector<?> target = inner != null ? inner : d;
    boolean weighted = kind.equals("random") || kind.equals("hash");
    List<Member> initial = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      initial.add(Member.of(Backend.named("a" + i)));
      initial.add(Member.of(Backend.named("b" + i)).withHealth(false, 0));
      initial.add(Member.of(Backend.named("x" + i)).withHealth(false, 0));
    }
    if (weighted) {
      initial.add(Member.of(Backend.named("z"), 0));
    }
    target.replaceAll(initial);

    AtomicBoolean stop = new AtomicBoolean();
    ConcurrentLinkedQueue<String> bad = new ConcurrentLinkedQueue<>();
    AtomicLong picks = new AtomicLong();
    CountDownLatch started = new CountDownLatch(2);
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      final int seed = t;
      Thread r =
          new Thread(
              () -> {
                started.countDown();
                long n = 0;
                while (!stop.get()) {
                  Backend b = d.pick(Request.ofKey((n * 2654435761L + seed) & 0xFFFFFFFFL));
                  n++;
                  String name = b == null ? "null" : b.name();
                  if (!(name.startsWith("a") || name.startsWith("b"))) {
                    bad.add(name);
                  }
                }
                picks.addAndGet(n);
              });
      r.start();
      readers.add(r);
    }
    started.await();
    long deadline = System.nanoTime() + 700_000_000L;
    int round = 0;
    while (System.nanoTime() < deadline) {
      String up = (round & 1) == 0 ? "b" : "a";
      String down = (round & 1) == 0 ? "a" : "b";
      // one member at a time: bring the new side up before taking the old side down
      for (int i = 0; i < 5; i++) {
        target.setHealthy(up + i, true);
      }
      for (int i = 0; i < 5; i++) {
        target.setHealthy(down + i, false);
      }
      if (weighted) {
        target.setWeight(up + (round % 5), 1 + round % 3);
      }
      // membership churn: an always-down member comes and goes
      target.remove("x" + (round % 5));
      target.add(Member.of(Backend.named("x" + (round % 5))).withHealth(false, 0));
      round++;
    }
    stop.set(true);
    for (Thread r : readers) {
      r.join(5000);
    }
    assertThat(bad).as("bad picks out of %d", picks.get()).isEmpty();
    assertThat(picks.get()).isGreaterThan(1000);
    assertThat(round).isGreaterThan(10);
  }

  @ParameterizedTest
  @ValueSource(strings = {"round_robin"})
  void roundRobinRotationIsStrictUnderConcurrency(String kind) throws Exception {
    AbstractDirector<?> d = director(kind);
    int members = 4;
    for (int i = 0; i < members; i++) {
      d.add(Member.of(Backend.named("m" + i)));
    }
    int perThread = 100_000;
    int[][] counts = new int[2][members];
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      final int[] c = counts[t];
      Supplier<Runnable> body =
          () ->
              () -> {
                for (int i = 0; i < perThread; i++) {
                  c[d.pick(Request.EMPTY).name().charAt(1) - '0']++;
                }
              };
      Thread th = new Thread(body.get());
      th.start();
      ts.add(th);
    }
    for (Thread th : ts) {
      th.join();
    }
    // every pick took its own turn: each member got exactly a quarter
    for (int m = 0; m < members; m++) {
      assertThat(counts[0][m] + counts[1][m]).isEqualTo(2 * perThread / members);
    }
  }
}

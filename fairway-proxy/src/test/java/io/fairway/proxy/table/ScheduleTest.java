package io.fairway.proxy.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.proxy.ProxyOptions;
import io.fairway.table.Dest;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.netty.channel.DefaultEventLoop;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ProxyService#schedule}, the one decision of both TCP frontends, without a socket: who is
 * leased a server at once, who queues (first tries only, behind anyone already waiting, or when
 * every server is at its {@code uthreshold}), who is refused and why, and what a waiter is told.
 * Everything the frontends would do on their event loop is done on one here.
 */
class ScheduleTest {
  static final InetAddress LO = InetAddress.getLoopbackAddress();
  static final InetSocketAddress CLIENT = new InetSocketAddress(LO, 40000);

  /** Longer than any test: only the timeout test waits out its own. */
  static final Duration LONG = Duration.ofMinutes(1);

  final DefaultEventLoop loop = new DefaultEventLoop();
  final ProxyService vs =
      new ProxyService(
          Service.of(ServiceKey.of(Protocol.TCP, LO, 80), "rr"),
          ListenerSpec.tcp(),
          ProxyOptions.builder().build(),
          new ConnectionExpiry(0));

  /** What the waiters were told, in order, as "name:port" (a lease) or "name:reason". */
  final List<String> told = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
  }

  static Dest dest(int port, int weight, int uthreshold) {
    return new Dest(LO, port, ForwardingMethod.MASQ, weight, uthreshold, 0, null);
  }

  /** Runs on the loop, as the frontends do, and waits for it. */
  <T> T onLoop(Callable<T> c) throws Exception {
    return loop.submit(c).get(10, TimeUnit.SECONDS);
  }

  /** A first try. */
  Pick schedule(Waiter w) throws Exception {
    return onLoop(() -> schedule(w, Set.of(), LONG));
  }

  /** On the loop already. */
  Pick schedule(Waiter w, Set<ProxyBackend> tried, Duration wait) {
    return vs.schedule(CLIENT, null, tried, ProxyService.NO_ALT, loop, wait, w);
  }

  /** A waiter that writes down what it is told, and keeps the lease it is given. */
  final class Waiter implements SlotWaiter {
    final String name;
    volatile boolean gone;
    volatile Lease lease;
    final AtomicInteger asked = new AtomicInteger();

    Waiter(String name) {
      this.name = name;
    }

    @Override
    public boolean gone() {
      asked.incrementAndGet();
      return gone;
    }

    @Override
    public void resume(Pick pick) {
      assertThat(loop.inEventLoop()).isTrue();
      if (pick instanceof Lease l) {
        lease = l;
        told.add(name + ":" + l.server.address.getPort());
      } else {
        told.add(name + ":" + pick);
      }
    }

    @Override
    public void timedOut() {
      assertThat(loop.inEventLoop()).isTrue();
      told.add(name + ":timed out");
    }
  }

  @Test
  void aServerWithRoomIsLeasedAtOnce() throws Exception {
    vs.addDest(dest(9001, 1, 1));
    Pick p = schedule(new Waiter("a"));
    assertThat(p).isInstanceOf(Lease.class);
    assertThat(((Lease) p).server.address.getPort()).isEqualTo(9001);
    assertThat(vs.slots().waiting()).isZero();
  }

  @Test
  void aFirstTryAtAFullServerWaitsAndIsLeasedTheSlotThatFrees() throws Exception {
    vs.addDest(dest(9001, 1, 1));
    Lease a = (Lease) schedule(new Waiter("a"));
    Waiter b = new Waiter("b");
    assertThat(schedule(b)).isEqualTo(Pick.Queued.QUEUED);
    assertThat(vs.slots().waiting()).isEqualTo(1);
    assertThat(told).isEmpty();
    a.closeRequest(); // from another thread, as a lease may end anywhere
    await().atMost(Duration.ofSeconds(10)).until(() -> !told.isEmpty());
    assertThat(told).containsExactly("b:9001");
    assertThat(vs.slots().waiting()).isZero();
    assertThat(vs.slots().stats()).isEqualTo(new QueueStats(0, 1, 0, 0)); // waited, then served
  }

  /**
   * A server that refused teaches a limit of one: the next pick finds it held there and queues.
   * Asking whether the server is full happens several times for that one pick (selecting, then
   * whether waiting helps); the hit is counted once. A newcomer queued behind it did not look.
   */
  @Test
  void aPickQueuedByTheLearnedLimitIsOneHit() throws Exception {
    vs.addDest(dest(9001, 1, 0));
    Lease a = (Lease) schedule(new Waiter("a"));
    ProxyBackend rs = a.server;
    onLoop(
        () -> {
          a.refused();
          return null;
        });
    assertThat(rs.learnedLimit()).isEqualTo(1);
    assertThat(rs.limitHits()).isZero();
    assertThat(schedule(new Waiter("b"))).isEqualTo(Pick.Queued.QUEUED);
    assertThat(rs.limitHits()).isEqualTo(1);
    assertThat(schedule(new Waiter("c"))).isEqualTo(Pick.Queued.QUEUED);
    assertThat(rs.limitHits()).isEqualTo(1);
  }

  @Test
  void aNewcomerQueuesBehindAWaiterEvenWhenASlotIsFree() throws Exception {
    vs.addDest(dest(9001, 1, 1));
    schedule(new Waiter("a"));
    Waiter b = new Waiter("b");
    Waiter c = new Waiter("c");
    // One loop task, so that no turn of b's comes between: b waits, two slots free without a lease
    // ending (a raised uthreshold), and c asks.
    List<Pick> picks =
        onLoop(
            () -> {
              Pick pb = schedule(b, Set.of(), LONG);
              vs.setDest(dest(9001, 1, 3));
              assertThat(vs.atCapacity()).isFalse();
              return List.of(pb, schedule(c, Set.of(), LONG));
            });
    assertThat(picks).containsExactly(Pick.Queued.QUEUED, Pick.Queued.QUEUED);
    // c's queueing woke the first in line, who woke the next.
    await().atMost(Duration.ofSeconds(10)).until(() -> told.size() == 2);
    assertThat(told).containsExactly("b:9001", "c:9001");
  }

  @Test
  void aRetryIsRefusedAtOnceEvenWhenTheOthersAreOnlyFull() throws Exception {
    vs.addDest(dest(9001, 1, 1));
    vs.addDest(dest(9002, 1, 1));
    schedule(new Waiter("a"));
    schedule(new Waiter("b"));
    assertThat(onLoop(vs::atCapacity)).isTrue();
    ProxyBackend failed = vs.pool().servers().get(0);
    Pick p = onLoop(() -> schedule(new Waiter("c"), Set.of(failed), LONG));
    assertThat(p).isEqualTo(Pick.None.ALL_TRIED);
    assertThat(vs.slots().waiting()).isZero();
  }

  @Test
  void noServerOrOnlyDrainedOnesIsRefusedAtOnceWithoutWaiting() throws Exception {
    assertThat(schedule(new Waiter("a"))).isEqualTo(Pick.None.NO_SERVER);
    vs.addDest(dest(9001, 0, 1));
    assertThat(schedule(new Waiter("b"))).isEqualTo(Pick.None.NO_SERVER);
    assertThat(vs.slots().waiting()).isZero();
    assertThat(told).isEmpty();
  }

  @Test
  void aWaiterWhoseServerIsDrainedIsToldThereIsNone() throws Exception {
    vs.addDest(dest(9001, 1, 1));
    schedule(new Waiter("a"));
    assertThat(schedule(new Waiter("b"))).isEqualTo(Pick.Queued.QUEUED);
    // No lease ends: the queue's own nudge gives b its turn.
    onLoop(
        () -> {
          vs.setDest(dest(9001, 0, 1));
          return null;
        });
    await().atMost(Duration.ofSeconds(10)).until(() -> !told.isEmpty());
    assertThat(told).containsExactly("b:NO_SERVER");
  }

  @Test
  void aWaiterThatGetsNoSlotTimesOut() throws Exception {
    vs.addDest(dest(9001, 1, 1));
    schedule(new Waiter("a"));
    Waiter b = new Waiter("b");
    assertThat(onLoop(() -> schedule(b, Set.of(), Duration.ofMillis(300))))
        .isEqualTo(Pick.Queued.QUEUED);
    await().atMost(Duration.ofSeconds(10)).until(() -> !told.isEmpty());
    assertThat(told).containsExactly("b:timed out");
    assertThat(b.asked.get()).isPositive(); // the nudges asked it, and it was still full
    assertThat(vs.slots().waiting()).isZero();
    assertThat(vs.slots().stats()).isEqualTo(new QueueStats(0, 1, 1, 0));
  }

  @Test
  void aWaiterThatWentAwayBeforeItsTimeIsNotToldNorCountedAsTimedOut() throws Exception {
    vs.addDest(dest(9001, 1, 1));
    schedule(new Waiter("a"));
    Waiter b = new Waiter("b");
    b.gone = true; // it left, and its timeout (30 ms) comes before the queue's first nudge (100 ms)
    assertThat(onLoop(() -> schedule(b, Set.of(), Duration.ofMillis(30))))
        .isEqualTo(Pick.Queued.QUEUED);
    await().atMost(Duration.ofSeconds(10)).until(() -> vs.slots().waiting() == 0);
    assertThat(told).isEmpty();
    assertThat(vs.slots().stats()).isEqualTo(new QueueStats(0, 1, 0, 0));
  }

  @Test
  void aWaiterThatWentAwayLeavesTheSlotToTheNext() throws Exception {
    vs.addDest(dest(9001, 1, 1));
    Lease a = (Lease) schedule(new Waiter("a"));
    Waiter b = new Waiter("b");
    assertThat(schedule(b)).isEqualTo(Pick.Queued.QUEUED);
    b.gone = true;
    a.closeRequest();
    await().atMost(Duration.ofSeconds(10)).until(() -> vs.slots().waiting() == 0);
    assertThat(told).isEmpty();
    assertThat(schedule(new Waiter("c"))).isInstanceOf(Lease.class);
  }

  @Test
  void aFullQueueRefusesAtOnce() throws Exception {
    vs.addDest(dest(9001, 1, 1));
    schedule(new Waiter("a"));
    // One loop task each: a newcomer wakes the first in line, who is back in line only once its
    // turn (a task of its own) found the server still full.
    for (int i = 0; i < SlotQueue.MAX_WAITERS; i++) {
      assertThat(schedule(new Waiter("w" + i))).isEqualTo(Pick.Queued.QUEUED);
    }
    Pick last =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    onLoop(
                        () ->
                            vs.slots().waiting() == SlotQueue.MAX_WAITERS
                                ? schedule(new Waiter("late"), Set.of(), LONG)
                                : null),
                Objects::nonNull);
    assertThat(last).isEqualTo(Pick.None.QUEUE_FULL);
    assertThat(vs.slots().waiting()).isEqualTo(SlotQueue.MAX_WAITERS);
    assertThat(vs.slots().stats())
        .isEqualTo(new QueueStats(SlotQueue.MAX_WAITERS, SlotQueue.MAX_WAITERS, 0, 1));
  }
}

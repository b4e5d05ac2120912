package io.fairway.proxy.table;

import io.fairway.proxy.ProxyOptions;
import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.table.DestKey;
import io.fairway.table.Endpoints;
import io.fairway.table.Stats;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * One destination of one service as the data plane sees it: its configuration (replaced in place by
 * {@code setDest}, so its counters and connections survive a weight change) and its live connection
 * accounting.
 *
 * <p>Accounting follows the kernel: a connection is active while established and inactive for
 * {@link ProxyOptions#inactiveExpiry()} after it closes. The OVERLOAD flag is set when a new
 * connection brings active+inactive to {@code uthreshold}, and cleared when the total falls below
 * {@code lthreshold} (or below 3/4 of {@code uthreshold} when there is none) — evaluated lazily at
 * pick time, which is when the kernel's expiry events would have been observed anyway.
 */
public final class ProxyBackend implements io.fairway.director.Backend {
  final DestKey key;
  public final InetSocketAddress address;
  private final String name;
  private volatile Dest dest;
  private volatile boolean overloaded;
  private volatile int maxConns;
  private volatile boolean removed;
  private final AtomicInteger active = new AtomicInteger();
  private final ExpiringCount inactive;

  /** Live UDP flows: inactive for their whole life, as the kernel counts UDP connections. */
  private final AtomicInteger flows = new AtomicInteger();

  final AtomicInteger persistent = new AtomicInteger();
  private final LongAdder connections = new LongAdder();
  public final LongAdder inBytes = new LongAdder();
  public final LongAdder outBytes = new LongAdder();

  /** Client-side channels whose traffic goes here, so removal can close them. */
  public final Set<Channel> established = ConcurrentHashMap.newKeySet();

  /** HTTP responses, durations, connect times and retries (HTTP services). */
  public final HttpStats http = new HttpStats();

  /**
   * The frontends' own state on this server (HTTP's idle keep-alive connections and its HTTP/2
   * connections, per event loop), made on first use: see {@link BackendAttachment}.
   */
  private final AtomicReferenceArray<@Nullable Object> attachments =
      new AtomicReferenceArray<>(BackendAttachment.SLOTS);

  /** This server in the kernel-scheduler model, when the service runs a kernel scheduler. */
  volatile io.fairway.director.sched.@Nullable SchedDest kernelDest;

  /** What it takes at once when no {@code max_conns} says so. */
  private final LearnedLimit learned = new LearnedLimit();

  ProxyBackend(Dest dest, int inactiveExpirySeconds) {
    this.dest = dest;
    this.key = dest.key();
    this.address = new InetSocketAddress(dest.address(), dest.port());
    this.name = Endpoints.format(dest.address(), dest.port());
    this.inactive = new ExpiringCount(inactiveExpirySeconds);
  }

  /** The frontend's state {@code key} on this server, made now if this is its first use. */
  public <T> T attachment(BackendAttachment<T> key) {
    Object state = attachments.get(key.slot);
    return key.cast(state != null ? state : firstUse(key));
  }

  /** Makes the state once, however many event loops ask for it at the same time. */
  private synchronized Object firstUse(BackendAttachment<?> key) {
    Object state = attachments.get(key.slot);
    if (state == null) {
      state = key.create();
      attachments.set(key.slot, state);
    }
    return state;
  }

  @Override
  public String name() {
    return name;
  }

  Dest dest() {
    return dest;
  }

  int weight() {
    return dest.weight();
  }

  /** {@code __ip_vs_update_dest}: raising or removing uthreshold clears OVERLOAD. */
  void update(Dest d) {
    Dest old = dest;
    if (d.upperThreshold() == 0 || d.upperThreshold() > old.upperThreshold()) {
      overloaded = false;
    }
    dest = d;
    if (old.weight() == 0 && d.weight() > 0) {
      // Back from failing its checks (or a drain): what it refused while failing is no measure.
      learned.forget();
      pushLimit();
    }
  }

  /** Sets this server's place in the kernel-scheduler model, which then takes its learned limit. */
  void kernelDest(io.fairway.director.sched.@Nullable SchedDest kd) {
    kernelDest = kd;
    pushLimit();
  }

  private void pushLimit() {
    io.fairway.director.sched.SchedDest kd = kernelDest;
    if (kd != null) {
      kd.learnedLimit(learned.limit());
    }
  }

  /** The learned limit in force now: 0 when none is learned or {@code max_conns} is set. */
  public int learnedLimit() {
    return maxConns != 0 ? 0 : learned.limit();
  }

  /** For metrics: refusals seen, and picks turned away by the learned limit. */
  public long refusals() {
    return learned.refusals();
  }

  public long limitHits() {
    return learned.hits();
  }

  /** The window a lease taken now belongs to ({@link LearnedLimit#epoch}). */
  int limitEpoch() {
    return learned.epoch();
  }

  /** This server refused a connection or request that a lease of {@code epoch} held. */
  void refused(int epoch) {
    if (learned.refused(epoch, active(), System.nanoTime())) {
      pushLimit();
    }
  }

  /** This server answered a connection or request. */
  void served() {
    if (learned.limit() == 0) {
      return; // nothing learned: no clock read on every answer
    }
    if (learned.served(active(), System.nanoTime())) {
      pushLimit();
    }
  }

  /**
   * Whether the learned limit, rather than {@code max_conns} or the thresholds, is what keeps new
   * connections away now, with {@code activeNow} on this server.
   */
  boolean heldByLearnedLimit(int activeNow) {
    if (maxConns != 0) {
      return false;
    }
    int l = learned.limit();
    return l != 0 && activeNow >= l;
  }

  /** A pick was turned away while the learned limit held this server ({@link #limitHits}). */
  void limitHit() {
    learned.hit();
  }

  int active() {
    return active.get();
  }

  int inactive() {
    return inactive.count(System.nanoTime()) + flows.get();
  }

  /** The plan's {@code max_conns}: live connections (L4) or requests (HTTP) at once, 0 = none. */
  void limit(int m) {
    maxConns = m;
  }

  int maxConns() {
    return maxConns;
  }

  /**
   * Whether new connections are kept away: by the thresholds (the kernel's OVERLOAD), or by {@code
   * max_conns} (else the learned limit), which counts only live connections and lets the next one
   * in as soon as one ends.
   */
  boolean overloaded() {
    int m = maxConns;
    int a = active();
    if ((m != 0 && a >= m) || heldByLearnedLimit(a)) {
      return true;
    }
    if (!overloaded) {
      return false;
    }
    Dest d = dest;
    int total = active() + inactive();
    boolean clear;
    if (d.lowerThreshold() != 0) {
      clear = total < d.lowerThreshold();
    } else if (d.upperThreshold() != 0) {
      clear = total * 4L < d.upperThreshold() * 3L;
    } else {
      clear = true;
    }
    if (clear) {
      overloaded = false;
    }
    return !clear;
  }

  public boolean removed() {
    return removed;
  }

  void markRemoved() {
    removed = true;
  }

  /** A new connection was scheduled here ({@code ip_vs_bind_dest}). */
  void bind() {
    connections.increment();
    int a = active.incrementAndGet();
    Dest d = dest;
    if (d.upperThreshold() != 0 && a + inactive() >= d.upperThreshold()) {
      overloaded = true;
    }
  }

  /** An HTTP request finished: it stops counting at once. */
  void release() {
    active.decrementAndGet();
  }

  /** The connection just bound is a UDP flow: it counts as inactive until the flow ends. */
  void bindFlow() {
    active.decrementAndGet();
    flows.incrementAndGet();
  }

  /** A UDP flow expired or was closed: it stops counting at once (no closing state to wait out). */
  void unbindFlow() {
    flows.decrementAndGet();
  }

  /** That connection closed: from now on it counts as inactive until it expires. */
  void unbind() {
    active.decrementAndGet();
    inactive.record(System.nanoTime());
  }

  DestEntry entry() {
    Stats s = new Stats(connections.sum(), 0, 0, inBytes.sum(), outBytes.sum(), 0, 0, 0, 0, 0);
    io.fairway.director.sched.SchedDest kd = kernelDest;
    int templates = kd != null ? kd.persistConns() : persistent.get();
    return new DestEntry(dest, active(), inactive(), templates, s);
  }

  @Override
  public String toString() {
    return name;
  }
}

package io.fairway.director.sched;

import io.fairway.director.Backend;
import io.fairway.director.SlowStart;
import java.net.InetAddress;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.jspecify.annotations.Nullable;

/**
 * One real server of a virtual service, with the live state the kernel keeps in {@code struct
 * ip_vs_dest}: weight, thresholds, the OVERLOAD flag and the active / inactive / persistent
 * connection counters.
 *
 * <p>A {@code SchedDest} keeps its identity across reconfigurations (weight or threshold changes),
 * exactly as the kernel keeps one {@code ip_vs_dest} per address:port, so connection counts survive
 * a reload. Counters are only changed through {@link Connection} (the data plane's accounting
 * calls) and {@link LoadSnapshot} (the operator's "what if" snapshot).
 */
public final class SchedDest implements Backend {
  private final String name;
  private final InetAddress address;
  private final int port;

  private volatile int weight;

  /**
   * Last non-zero weight (or the weight it was added with): mh builds its table from it so
   * quiescing does not reshuffle.
   */
  private volatile int lastWeight;

  private volatile int upperThreshold;
  private volatile int lowerThreshold;
  private volatile boolean overloaded;

  /** Fairway's {@code max_conns}: active connections at which it takes no new one; 0 = none. */
  private volatile int maxConns;

  private volatile int learnedLimit;

  /**
   * Cleared when the server leaves the service: persistence templates pointing here become invalid.
   */
  private volatile boolean available = true;

  /**
   * Slow start ({@link SlowStart}): when the ramp began, in its service's nanosecond clock, and how
   * long it lasts; {@code rampNanos == 0} when the server is not ramping. Written under the
   * service's lock.
   */
  private volatile long rampStart;

  private volatile long rampNanos;

  /** The ramp's progress, 1..STEPS; STEPS when not ramping (what a pick reads). */
  private volatile int rampUnits = SlowStart.STEPS;

  /**
   * 1, or {@link SlowStart#STEPS} while anybody in the service ramps, so weight-1 servers can ramp.
   */
  private int weightScale = 1;

  /**
   * The weight the weighted schedulers compare: {@link #weight}, scaled and ramped ({@link
   * SlowStart#scaledWeight}).
   */
  private volatile int eweight;

  /** The turn-taking schedulers' ramp credit ({@link SlowStart#credit}). */
  private volatile int rampCredit;

  private static final AtomicIntegerFieldUpdater<SchedDest> CREDIT =
      AtomicIntegerFieldUpdater.newUpdater(SchedDest.class, "rampCredit");

  /**
   * What a {@link io.fairway.director.Director} hands back for this server: the caller's own
   * backend object.
   */
  private volatile Backend backend = this;

  // Counters live in the object itself (not in AtomicIntegers) so an lc/wlc scan touches one cache
  // line per server.
  private volatile int activeConns;
  private volatile int inactiveConns;
  private volatile int persistConns;
  private static final AtomicIntegerFieldUpdater<SchedDest> ACTIVE =
      AtomicIntegerFieldUpdater.newUpdater(SchedDest.class, "activeConns");
  private static final AtomicIntegerFieldUpdater<SchedDest> INACTIVE =
      AtomicIntegerFieldUpdater.newUpdater(SchedDest.class, "inactiveConns");
  private static final AtomicIntegerFieldUpdater<SchedDest> PERSIST =
      AtomicIntegerFieldUpdater.newUpdater(SchedDest.class, "persistConns");

  SchedDest(DestSpec spec) {
    this.name = spec.name();
    this.address = spec.address();
    this.port = spec.port();
    this.weight = spec.weight();
    this.lastWeight = spec.weight();
    this.upperThreshold = spec.upperThreshold();
    this.lowerThreshold = spec.lowerThreshold();
    this.maxConns = spec.maxConns();
    this.eweight = spec.weight();
  }

  /** Creates a free-standing server (for tests, simulators and {@code fairway pick}). */
  public static SchedDest of(DestSpec spec) {
    return new SchedDest(spec);
  }

  /** The name printed for this server: its configured name, or {@code IP:PORT}. */
  @Override
  public String name() {
    return name;
  }

  /**
   * The backend object this server stands for ({@link SchedDirector}); itself when used standalone.
   */
  public Backend backend() {
    return backend;
  }

  void backend(@Nullable Backend b) {
    backend = b == null ? this : b;
  }

  public InetAddress address() {
    return address;
  }

  public int port() {
    return port;
  }

  public int weight() {
    return weight;
  }

  int lastWeight() {
    return lastWeight;
  }

  public int upperThreshold() {
    return upperThreshold;
  }

  public int lowerThreshold() {
    return lowerThreshold;
  }

  /**
   * The weight wrr, wlc, sed, nq and twos compare: the weight, scaled while the service ramps
   * anybody.
   */
  int eweight() {
    return eweight;
  }

  /** Whether this server is in its slow start. */
  public boolean ramping() {
    return rampNanos != 0;
  }

  /** The slow start's progress in hundredths (1..100); 100 when not ramping. */
  public int rampUnits() {
    return rampUnits;
  }

  /** The fraction of its share this server takes now: 1 unless it is ramping. */
  public double rampFraction() {
    return SlowStart.fraction(rampUnits);
  }

  /**
   * For the turn-taking schedulers: whether this turn admits the server. Always for a server that
   * is not ramping; for a ramping one on {@code units / 100} of its turns, by a credit ({@link
   * SlowStart#credit}).
   */
  boolean admit() {
    int u = rampUnits;
    if (u >= SlowStart.STEPS) return true;
    while (true) {
      int c = rampCredit;
      int r = SlowStart.credit(c, u);
      if (CREDIT.compareAndSet(this, c, SlowStart.remaining(r))) return SlowStart.admitted(r);
    }
  }

  /** Starts a ramp at {@code start} lasting {@code nanos}, or ends it ({@code nanos <= 0}). */
  void ramp(long start, long nanos, long now) {
    rampStart = start;
    rampNanos = Math.max(0, nanos);
    rampCredit = 0;
    refreshRamp(now);
  }

  /**
   * Moves the ramp's progress to {@code now}, ending it when its time is up; returns whether the
   * progress changed.
   */
  boolean refreshRamp(long now) {
    long n = rampNanos;
    int u = n == 0 ? SlowStart.STEPS : SlowStart.units(now - rampStart, n);
    if (u >= SlowStart.STEPS) rampNanos = 0;
    boolean changed = u != rampUnits;
    rampUnits = u;
    reweigh();
    return changed;
  }

  /** When this server's ramp next moves (the service's clock), or {@link Long#MAX_VALUE}. */
  long nextRampStep(long now) {
    long n = rampNanos;
    if (n == 0) return Long.MAX_VALUE;
    long start = rampStart;
    return start + SlowStart.nextStep(now - start, n);
  }

  /**
   * The service's weight scale: 1 when nobody ramps, {@link SlowStart#STEPS} while anybody does.
   */
  void weightScale(int scale) {
    weightScale = scale;
    reweigh();
  }

  private void reweigh() {
    int w = weight;
    eweight =
        weightScale == 1 && rampUnits >= SlowStart.STEPS ? w : SlowStart.scaledWeight(w, rampUnits);
  }

  /**
   * Takes no new connection: the kernel's {@code IP_VS_DEST_F_OVERLOAD} (until the count falls
   * below the lower mark), or as many active connections as Fairway's {@code max_conns} allows
   * (until one ends). Every scheduler skips such a server.
   */
  public boolean overloaded() {
    int m = maxConns;
    if (m == 0) {
      m = learnedLimit;
    }
    return overloaded || (m != 0 && activeConns >= m);
  }

  /**
   * A limit on active connections that the owner of this model learned at run time (the userspace
   * proxy learns one from a server's refusals), in force while no {@code max_conns} is configured;
   * 0 = none. Not part of the spec: a reload does not carry it.
   */
  public void learnedLimit(int limit) {
    learnedLimit = limit;
  }

  /** Fairway's {@code max_conns}, 0 = none. */
  public int maxConns() {
    return maxConns;
  }

  public boolean available() {
    return available;
  }

  public int activeConns() {
    return activeConns;
  }

  public int inactiveConns() {
    return inactiveConns;
  }

  public int persistConns() {
    return persistConns;
  }

  /**
   * {@code ip_vs_dest_totalconns}: what the thresholds compare against (templates are not counted).
   */
  public int totalConns() {
    return activeConns + inactiveConns;
  }

  /**
   * {@code ip_vs_dest_conn_overhead}: active connections cost 256 times an inactive one (lc, wlc).
   */
  long connOverhead() {
    return ((long) activeConns << 8) + inactiveConns;
  }

  /** The spec this server is configured with now. */
  public DestSpec spec() {
    return new DestSpec(name, address, port, weight, upperThreshold, lowerThreshold, maxConns);
  }

  /**
   * {@code __ip_vs_update_dest}: a weight/threshold change. OVERLOAD is cleared at once when the
   * upper threshold is removed or raised; lowering it does not set the flag until the next
   * connection is bound.
   */
  void update(DestSpec spec) {
    if (!spec.sameServer(address, port)) {
      throw new IllegalArgumentException("cannot change the address of " + name);
    }
    weight = spec.weight();
    if (spec.weight() != 0) {
      lastWeight = spec.weight();
    }
    if (spec.upperThreshold() == 0 || spec.upperThreshold() > upperThreshold) {
      overloaded = false;
    }
    upperThreshold = spec.upperThreshold();
    lowerThreshold = spec.lowerThreshold();
    maxConns = spec.maxConns();
    reweigh();
  }

  /**
   * Out of the service: a ramp ends with it (coming back is a new ramp, if the caller starts one).
   */
  void markRemoved() {
    available = false;
    rampNanos = 0;
    rampUnits = SlowStart.STEPS;
    reweigh();
  }

  /** Back in the service (the kernel revives a dest from its trash): the spec applies as on add. */
  void revive(DestSpec spec) {
    update(spec);
    lastWeight = spec.weight();
    available = true;
  }

  /** {@code ip_vs_bind_dest}: a connection (or template) now points here. */
  void bind(ConnKind kind) {
    switch (kind) {
      case ACTIVE -> ACTIVE.incrementAndGet(this);
      case INACTIVE -> INACTIVE.incrementAndGet(this);
      case TEMPLATE -> PERSIST.incrementAndGet(this);
    }
    int u = upperThreshold;
    if (u != 0 && totalConns() >= u) {
      overloaded = true;
    }
  }

  /**
   * {@code ip_vs_unbind_dest}: the connection expired. Clears OVERLOAD by the lower mark, or the
   * 3/4 rule.
   */
  void unbind(ConnKind kind) {
    switch (kind) {
      case ACTIVE -> ACTIVE.decrementAndGet(this);
      case INACTIVE -> INACTIVE.decrementAndGet(this);
      case TEMPLATE -> PERSIST.decrementAndGet(this);
    }
    relieve();
  }

  /**
   * {@code n} inactive connections expired at once, each detached with {@link
   * Connection#detachForBatchExpiry()}: what a data plane that expires closed connections in
   * batches reports, instead of keeping every connection object alive until its own expiry (at tens
   * of thousands of connections a second, a minute of them is millions of objects the garbage
   * collector has to copy). OVERLOAD clears as for a single expiry.
   */
  public void expireInactive(int n) {
    if (n <= 0) return;
    INACTIVE.addAndGet(this, -n);
    relieve();
  }

  private void relieve() {
    int l = lowerThreshold;
    int u = upperThreshold;
    int total = totalConns();
    if (l != 0) {
      if (total < l) overloaded = false;
    } else if (u != 0) {
      if ((long) total * 4 < (long) u * 3) overloaded = false;
    } else {
      overloaded = false;
    }
  }

  /** A TCP state change between "established" (active) and any other state (inactive). */
  void move(ConnKind from, ConnKind to) {
    if (from == to) return;
    (from == ConnKind.ACTIVE ? ACTIVE : INACTIVE).decrementAndGet(this);
    (to == ConnKind.ACTIVE ? ACTIVE : INACTIVE).incrementAndGet(this);
  }

  /**
   * Sets the counters directly (operator snapshot); the flag follows as if the connections had just
   * been bound.
   */
  void setLoad(int active, int inactive) {
    activeConns = active;
    inactiveConns = inactive;
    int u = upperThreshold;
    overloaded = u != 0 && totalConns() >= u;
  }

  enum ConnKind {
    ACTIVE,
    INACTIVE,
    TEMPLATE
  }

  @Override
  public String toString() {
    return name
        + "(w="
        + weight
        + ",a="
        + activeConns
        + ",i="
        + inactiveConns
        + (overloaded ? ",OVERLOAD" : "")
        + ")";
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return this == o;
  }

  @Override
  public int hashCode() {
    return Objects.hash(address, port);
  }
}

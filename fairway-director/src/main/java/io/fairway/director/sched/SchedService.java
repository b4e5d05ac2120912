package io.fairway.director.sched;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A virtual server as the userspace data plane sees it: its real servers with live counts, the
 * kernel scheduler, persistence templates, and the one thing the kernel cannot do — overflow to the
 * sorry server.
 *
 * <h2>Overflow to the sorry server</h2>
 *
 * When the scheduler finds no server (every real server overloaded by its {@code uthreshold}, or
 * quiesced with weight 0, or — for sh/dh/mh without fallback — the client's own server is), the
 * kernel drops the connection. Here it goes to {@code sorry_server} instead, and is counted there.
 * No persistence template is made for it, so as soon as one real server has room again (its count
 * fell below {@code lthreshold}, or 3/4 of {@code uthreshold}) the next new connection goes back to
 * the pool.
 *
 * <p>Membership changes are serialised; scheduling reads immutable copies and may run on any
 * thread.
 *
 * <h2>Batches</h2>
 *
 * Each change on its own hands the scheduler the whole list again, as the kernel calls its hooks
 * per change: fine for one verdict, O(n²) for installing n servers. Between {@link #beginBatch} and
 * {@link #endBatch} changes are made at O(1) each and the scheduler gets the list once, with the
 * changes in order ({@link KernelScheduler#update(List, List)}), so it ends as one update per
 * change would have left it. Until then new connections are scheduled over the list as it was
 * before the batch.
 *
 * <p>Batches stay on while a slow start ramps: the changes carry the weights the schedulers compare
 * (scaled and ramped, {@link SchedDest#eweight}), which stay put within a batch because everything
 * that moves a ramp ({@link #ramp}, a ramp's next step, removing a ramping server) first publishes
 * what the batch holds so far.
 */
public final class SchedService {
  private final KernelScheduler scheduler;
  private final @Nullable PersistenceTemplates templates;
  private final LongSupplier clockMillis;
  private final LongSupplier nanos;

  /**
   * When the next ramp step is due (the nanos clock); {@link Long#MAX_VALUE} while nobody ramps: a
   * pick then reads only this.
   */
  private volatile long nextRampStep = Long.MAX_VALUE;

  /** Servers in the order they were added (keepalived: config order), as last published. */
  private volatile List<SchedDest> addOrder = List.of();

  /**
   * The servers now, in the order they were added, by address:port; guarded by this. The kernel's
   * list is the reverse.
   */
  private final java.util.LinkedHashMap<At, SchedDest> members = new java.util.LinkedHashMap<>();

  /** The changes of the batch under way, or null outside a batch. */
  private @Nullable List<MemberChange> batch;

  /**
   * The weight scale of the last publication (1, or {@link io.fairway.director.SlowStart#STEPS}
   * while anybody ramps): what a server added in a batch is compared at until the batch ends.
   * Guarded by this.
   */
  private int scale = 1;

  private volatile @Nullable SchedDest sorry;

  /**
   * Removed servers, kept like the kernel's dest trash: re-adding the same address:port revives the
   * same object, so connections that outlived the removal are still counted against its thresholds.
   */
  private final java.util.Map<At, SchedDest> trash = new java.util.HashMap<>();

  /** A server's address:port, the kernel's key of a destination within its service. */
  private record At(InetAddress address, int port) {}

  public SchedService(
      KernelScheduler scheduler, @Nullable Persistence persistence, LongSupplier clockMillis) {
    this(scheduler, persistence, clockMillis, System::nanoTime);
  }

  /**
   * @param clockMillis wall clock for persistence templates
   * @param nanos the clock slow start ramps are timed by ({@link #ramp}); tests and {@code fairway
   *     pick} fix it
   */
  public SchedService(
      KernelScheduler scheduler,
      @Nullable Persistence persistence,
      LongSupplier clockMillis,
      LongSupplier nanos) {
    this.nanos = nanos;
    this.scheduler = scheduler;
    this.templates =
        persistence != null && persistence.enabled() ? new PersistenceTemplates(persistence) : null;
    this.clockMillis = clockMillis;
    scheduler.update(List.of());
  }

  public SchedService(KernelScheduler scheduler) {
    this(scheduler, Persistence.NONE, System::currentTimeMillis);
  }

  public KernelScheduler scheduler() {
    return scheduler;
  }

  /** The real servers in the order they were added. */
  public List<SchedDest> dests() {
    return addOrder;
  }

  /** The sorry server, or null. */
  public @Nullable SchedDest sorryServer() {
    return sorry;
  }

  /** Finds a real server (or the sorry server) by its printed name. */
  public @Nullable SchedDest byName(String name) {
    for (SchedDest d : addOrder) if (d.name().equals(name)) return d;
    SchedDest s = sorry;
    return s != null && s.name().equals(name) ? s : null;
  }

  /** Adds a real server, like the kernel's NEW_DEST (it goes to the head of the kernel's list). */
  public synchronized SchedDest add(DestSpec spec) {
    At at = new At(spec.address(), spec.port());
    if (members.containsKey(at)) {
      throw new IllegalArgumentException("real_server " + spec.name() + " is listed twice");
    }
    checkNotSorry(spec, sorry);
    SchedDest d = revive(spec);
    if (d.ramping()) {
      // Brought back still ramping: its scale may not be the batch's, as for a removal.
      flushBatch();
    }
    d.weightScale(scale);
    members.put(at, d);
    MemberChange c = MemberChange.add(d);
    if (d.ramping()) {
      publish(List.of(c));
    } else {
      changed(c);
    }
    return d;
  }

  /** Changes weight/thresholds of an existing server (SET_DEST): counts are kept. */
  public synchronized SchedDest edit(DestSpec spec) {
    SchedDest d = members.get(new At(spec.address(), spec.port()));
    if (d == null) throw new IllegalArgumentException("no real_server " + spec.name());
    int before = d.eweight();
    d.update(spec);
    changed(MemberChange.edit(d, before));
    return d;
  }

  /**
   * Removes a server (DEL_DEST). Its connections go on; templates pointing at it become invalid.
   */
  public synchronized void remove(InetAddress address, int port) {
    At at = new At(address, port);
    SchedDest d = members.get(at);
    if (d == null) return;
    boolean ramped = d.ramping();
    if (ramped) {
      // Its ramp ends with it, which can change every server's scale: a publication of its own,
      // after what the batch holds so far.
      flushBatch();
    }
    members.remove(at);
    int before = d.eweight();
    d.markRemoved();
    trash.put(at, d);
    MemberChange c = MemberChange.delete(d, before);
    if (ramped) {
      publish(List.of(c));
    } else {
      changed(c);
    }
  }

  /**
   * Starts a batch: the changes until {@link #endBatch} reach the scheduler together. The caller
   * serialises; a batch already under way goes on.
   */
  public synchronized void beginBatch() {
    if (batch == null) batch = new ArrayList<>();
  }

  /**
   * Ends the batch: the scheduler gets the resulting list and the changes, and new connections see
   * them.
   */
  public synchronized void endBatch() {
    List<MemberChange> changes = batch;
    batch = null;
    if (changes != null && !changes.isEmpty()) publish(changes);
  }

  /** A change: into the batch, or published now. */
  private void changed(MemberChange c) {
    if (batch != null) {
      batch.add(c);
    } else {
      publish(List.of(c));
    }
  }

  /** Publishes what the batch under way holds so far (it goes on). */
  private void flushBatch() {
    if (batch != null && !batch.isEmpty()) {
      List<MemberChange> changes = batch;
      batch = new ArrayList<>();
      publish(changes);
    }
  }

  /** A new server, or the removed one with this address:port brought back with its live counts. */
  private SchedDest revive(DestSpec spec) {
    SchedDest old = trash.remove(new At(spec.address(), spec.port()));
    if (old == null || old.totalConns() + old.persistConns() == 0) return new SchedDest(spec);
    old.revive(spec);
    return old;
  }

  /**
   * Makes the server list equal to {@code specs} with the fewest kernel-equivalent operations:
   * servers that stay keep their counts and list position, removed ones go, new ones are added in
   * the given order.
   */
  public synchronized void reconcile(List<DestSpec> specs) {
    java.util.Map<At, DestSpec> wanted = new java.util.LinkedHashMap<>();
    for (DestSpec s : specs) {
      if (wanted.putIfAbsent(new At(s.address(), s.port()), s) != null) {
        throw new IllegalArgumentException("real_server " + s.name() + " is listed twice");
      }
      checkNotSorry(s, sorry);
    }
    boolean ramping = false;
    for (SchedDest d : members.values()) ramping |= d.ramping();
    for (SchedDest d : trash.values()) ramping |= d.ramping();
    if (ramping) {
      // Removing a ramping server can change every server's scale: what the batch holds so far is
      // published, and this reconcile is one plain update of its own.
      flushBatch();
    }
    List<MemberChange> changes = batch != null && !ramping ? batch : new ArrayList<>();
    boolean batched = changes == batch;
    for (java.util.Iterator<java.util.Map.Entry<At, SchedDest>> it = members.entrySet().iterator();
        it.hasNext(); ) {
      java.util.Map.Entry<At, SchedDest> e = it.next();
      SchedDest d = e.getValue();
      DestSpec s = wanted.remove(e.getKey());
      if (s == null) {
        changes.add(MemberChange.delete(d, d.eweight()));
        d.markRemoved();
        trash.put(e.getKey(), d);
        it.remove();
      } else {
        int before = d.eweight();
        d.update(s);
        changes.add(MemberChange.edit(d, before));
      }
    }
    for (java.util.Map.Entry<At, DestSpec> e : wanted.entrySet()) {
      SchedDest d = revive(e.getValue());
      d.weightScale(scale);
      members.put(e.getKey(), d);
      changes.add(MemberChange.add(d));
    }
    if (!batched) publish(List.of()); // one update on the result, as a reconcile has always been
  }

  /** Sets or clears ({@code null}) the sorry server. It must not also be a real server. */
  public synchronized @Nullable SchedDest setSorryServer(@Nullable DestSpec spec) {
    if (spec == null) {
      sorry = null;
      return null;
    }
    for (SchedDest d : members.values()) checkNotSorry(d.spec(), spec);
    SchedDest current = sorry;
    if (current != null && spec.sameServer(current.address(), current.port())) {
      current.update(spec);
      return current;
    }
    sorry = new SchedDest(spec);
    return sorry;
  }

  private static void checkNotSorry(DestSpec real, @Nullable DestSpec sorrySpec) {
    if (sorrySpec != null && real.sameServer(sorrySpec.address(), sorrySpec.port())) {
      throw new IllegalArgumentException(
          "sorry_server "
              + sorrySpec.name()
              + " is also a real_server: it could never take overflow the real server cannot take");
    }
  }

  private static void checkNotSorry(DestSpec real, @Nullable SchedDest sorryDest) {
    if (sorryDest != null) checkNotSorry(real, sorryDest.spec());
  }

  /**
   * Slow start for one of this service's servers, in the scheduler itself: from now the server is
   * {@code elapsed} into a ramp of {@code duration} and takes that fraction of its share ({@link
   * io.fairway.director.SlowStart}). {@code duration <= 0}, or {@code elapsed >= duration}, ends a
   * ramp. The hashing schedulers (sh, dh, mh) ignore ramps: a ramp could only be applied to them by
   * moving clients between servers (docs/schedulers.md).
   */
  public synchronized void ramp(SchedDest d, long elapsedNanos, long durationNanos) {
    flushBatch();
    long now = nanos.getAsLong();
    d.ramp(now - Math.max(0, elapsedNanos), durationNanos, now);
    publish(List.of());
  }

  /**
   * Moves every ramp to now: one volatile read while nobody ramps, a rebuild when a ramp enters its
   * next step.
   */
  private void tickRamps() {
    long next = nextRampStep;
    if (next != Long.MAX_VALUE) {
      long now = nanos.getAsLong();
      if (now - next >= 0) refreshRamps(now);
    }
  }

  private synchronized void refreshRamps(long now) {
    if (now - nextRampStep < 0) return; // another pick moved them already
    // Before the weights move, so the batch's changes replay over the weights they were made at.
    flushBatch();
    boolean changed = false;
    for (SchedDest d : addOrder) changed |= d.refreshRamp(now);
    if (changed) {
      publish(List.of());
    } else {
      nextRampStep = nextStep(addOrder, now);
    }
  }

  private static long nextStep(List<SchedDest> dests, long now) {
    long next = Long.MAX_VALUE;
    for (SchedDest d : dests) {
      long at = d.nextRampStep(now);
      if (at != Long.MAX_VALUE && (next == Long.MAX_VALUE || at - next < 0)) next = at;
    }
    return next;
  }

  /**
   * Publishes the members: the scheduler replays {@code changes} (one or none: a plain update). The
   * scale is the same before and after a batch (see the class comment), so the effective weights
   * the changes carry are those the list ends with.
   */
  private void publish(List<MemberChange> changes) {
    List<SchedDest> next = List.copyOf(members.values());
    boolean ramping = false;
    for (SchedDest d : next) ramping |= d.ramping();
    // While anybody ramps every weight is scaled by 100, so a weight-1 server can take 1% of its
    // share.
    scale = ramping ? io.fairway.director.SlowStart.STEPS : 1;
    for (SchedDest d : next) d.weightScale(scale);
    nextRampStep = ramping ? nextStep(next, nanos.getAsLong()) : Long.MAX_VALUE;
    addOrder = next;
    List<SchedDest> kernel = new ArrayList<>(next);
    Collections.reverse(kernel);
    if (changes.size() <= 1) {
      scheduler.update(kernel);
    } else {
      scheduler.update(kernel, changes);
    }
  }

  /**
   * The server a new connection would get now, without counting it: the persistence template's
   * server if the client has a valid one, else the scheduler's choice, else the sorry server, else
   * {@code null} (refused).
   */
  public @Nullable SchedDest pick(Flow flow) {
    return pick(flow.client(), flow.clientFold(), flow.clientPort(), flow.destinationFold());
  }

  /**
   * {@link #pick(Flow)} on precomputed folds ({@link KernelScheduler#fold}); allocates nothing
   * without persistence.
   */
  public @Nullable SchedDest pick(
      @Nullable InetAddress client, int clientFold, int clientPort, int destinationFold) {
    tickRamps();
    if (templates != null && client != null) {
      PersistenceTemplates.Template t =
          templates.lookup(templates.key(client), clockMillis.getAsLong());
      if (t != null) return t.dest;
    }
    SchedDest d = scheduler.pick(clientFold, clientPort, destinationFold);
    return d != null ? d : overflow();
  }

  private @Nullable SchedDest overflow() {
    SchedDest s = sorry;
    return s != null && !s.overloaded() ? s : null;
  }

  /** True when {@code d} is this service's sorry server. */
  public boolean isSorry(SchedDest d) {
    return d != null && d.equals(sorry);
  }

  /**
   * Schedules and counts a new connection; null if refused. It counts as active from the first
   * packet: since Linux 4.8 the kernel counts the handshake states (SYN_SENT, SYN_RECV) as active,
   * so a SYN flood shows up in lc.
   */
  public @Nullable Connection open(Flow flow) {
    tickRamps();
    SchedDest.ConnKind kind = SchedDest.ConnKind.ACTIVE;
    long now = clockMillis.getAsLong();
    PersistenceTemplates.Template t = null;
    SchedDest d;
    if (templates != null) {
      PersistenceTemplates.Key key = templates.key(flow.client());
      t = templates.lookup(key, now);
      if (t != null) {
        d = t.dest;
      } else {
        d = scheduler.schedule(flow);
        if (d != null) t = templates.create(key, d, now);
      }
      if (t != null) templates.use(t, now);
    } else {
      d = scheduler.schedule(flow);
    }
    boolean toSorry = false;
    if (d == null) {
      d = overflow();
      if (d == null) return null;
      toSorry = true;
    }
    d.bind(kind);
    return new Connection(this, d, toSorry, kind, t);
  }

  void templateReleased(PersistenceTemplates.Template t) {
    // A template exists only where persistence is on, so templates is set.
    if (templates != null) templates.release(t, clockMillis.getAsLong());
  }

  /** Drops expired persistence templates; returns how many. */
  public int expireTemplates() {
    return templates == null ? 0 : templates.sweep(clockMillis.getAsLong());
  }

  /** Number of live persistence templates. */
  public int templateCount() {
    return templates == null ? 0 : templates.size();
  }
}

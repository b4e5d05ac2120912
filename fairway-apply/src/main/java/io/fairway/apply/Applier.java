package io.fairway.apply;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Ramp;
import io.fairway.table.RampTarget;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes verdicts into the table, with keepalived's ordering and tolerance rules.
 *
 * <p>Per real server it keeps the last verdict ({@code alive}) and whether a destination is in the
 * table ({@code present}) separately, as keepalived keeps {@code alive} and {@code set}: with
 * {@code inhibit_on_failure} a failed server is present at weight 0, and while the sorry server
 * serves an alive server is absent.
 *
 * <p>All methods are synchronized; verdicts from many checker threads are applied one at a time.
 *
 * <p>Once {@link #coalesceVerdicts} is called, verdicts ({@link #setAlive}, {@link #setWeight},
 * {@link #setMaint}, {@link #quorum}) that arrive together are published as one change of the table
 * ({@link PublicationHold}). Only a verdict's changes are held, and that is decided in one place,
 * not remembered by each method: a verdict makes its changes inside {@link #verdict}, and every
 * table call goes through {@link TolerantTable}, which publishes what is held before any call made
 * outside one. A method added here is published as it is made unless it is written as a verdict.
 */
public final class Applier {
  private static final Logger LOG = LoggerFactory.getLogger(Applier.class);

  private final TolerantTable table;
  private final Map<String, VsState> vss = new LinkedHashMap<>();

  /** Nanoseconds, for slow start ramps. */
  private final LongSupplier nanos;

  /** Told when a ramp starts, so a periodic step runs only while ramps do; under this lock. */
  private Runnable rampStarted = () -> {};

  /** Holds the table's publication across verdicts that arrive together, once enabled. */
  private final PublicationHold hold;

  /**
   * An applier for the given virtual servers, keyed by name. Nothing is written until {@link
   * #init}.
   */
  public Applier(Table table, Map<String, VirtualServer> vs) {
    this(table, vs, System::nanoTime);
  }

  /** The same, with the clock slow start ramps are timed by (tests drive it by hand). */
  public Applier(Table table, Map<String, VirtualServer> vs, LongSupplier nanos) {
    this.nanos = Objects.requireNonNull(nanos, "nanos");
    this.hold = new PublicationHold(Objects.requireNonNull(table, "table"), nanos);
    this.table = new TolerantTable(table, hold);
    for (Map.Entry<String, VirtualServer> e : vs.entrySet()) {
      vss.put(e.getKey(), new VsState(e.getValue()));
    }
  }

  /**
   * From now on verdicts that arrive together are published together: the table is held ({@link
   * io.fairway.table.Table#hold}) from the first verdict until {@code later} runs the release, a
   * window bounded by what publishing costs and by {@link PublicationHold#MAX_WAIT}. Each call
   * still runs, and is refused, when it is made. Anything that is not a verdict is not held: its
   * first table call publishes what is held, and it is published as it is made. A table that
   * publishes every change at once (the kernel's) is not held.
   */
  public synchronized void coalesceVerdicts(Later later) {
    hold.use(later);
  }

  /**
   * Publishes what a hold has held back: the timer's release, an operator's action (which goes
   * through the verdict paths, and {@link AdminApplier} publishes before it returns), and stopping.
   */
  public synchronized void publish() {
    hold.release();
  }

  /** Whether verdicts are being held now, unpublished (tests). */
  synchronized boolean holding() {
    return hold.open();
  }

  /**
   * Makes a verdict's changes of the table: held with the verdicts that arrive with it, until the
   * timer runs {@link #publish}. Only verdicts come here; anything else is published as it is made.
   */
  private void verdict(PublicationHold.Change change) throws TableException {
    hold.verdict(this::publish, change);
  }

  /** Whether {@link #init} has run for the virtual server. */
  public synchronized boolean initialized(String vsName) throws UnknownServerException {
    return vs(vsName).initialized;
  }

  /** The last verdict recorded for a real server. */
  public synchronized boolean alive(String vsName, String rsName) throws UnknownServerException {
    return rs(vs(vsName), rsName).alive;
  }

  /**
   * Reads the table back, serialised with every other call, since a table is used by one thread at
   * a time.
   */
  public synchronized List<io.fairway.table.ServiceEntry> readBack() throws TableException {
    return table.raw().list();
  }

  /** The table this applier writes to. */
  public Table table() {
    return table.raw();
  }

  /**
   * Installs a virtual server's services and every real server that starts up.
   *
   * <p>A server that starts <em>down</em> — alpha mode — is not installed at all. Adding it and
   * immediately removing it would put it in the table for however long the two syscalls take, and
   * traffic scheduled in that window goes to a backend nobody has checked. (With {@code
   * inhibit_on_failure} it is installed at weight 0, which schedules nothing.)
   *
   * <p>A virtual server that starts <em>below quorum</em> gets its sorry server here. keepalived
   * arranges the same thing by calling update_quorum_state with init true at the end of
   * init_service_vs (ipwrapper.c:659), whose losing branch has a second disjunct for exactly this
   * state (ipwrapper.c:552-553). Without it the sorry server appears only after a backend has come
   * up and gone down again — so a cold start against a dead pool, the case it most exists for,
   * serves connection-refused. Unlike keepalived, the alive servers of such a virtual server are
   * not added and then withdrawn: they are simply not added.
   */
  public synchronized void init(String vsName, InitialState initial)
      throws TableException, UnknownServerException {
    VsState vs = vs(vsName);
    for (String rsName : initial.alive()) {
      if (!vs.servers.containsKey(rsName)) {
        throw new UnknownServerException(vsName, rsName);
      }
    }
    for (String rsName : initial.weights().keySet()) {
      if (!vs.servers.containsKey(rsName)) {
        throw new UnknownServerException(vsName, rsName);
      }
    }
    table.begin();
    try {
      initBatched(vs, initial);
    } finally {
      table.commit();
    }
  }

  private void initBatched(VsState vs, InitialState initial) throws TableException {
    String vsName = vs.config.name();
    for (Service s : vs.config.services()) {
      LOG.info("Adding service {} ({})", s.key(), vs.config.name());
      table.addService(s);
    }
    vs.initialized = true;
    vs.quorumUp = initial.quorumUp();
    if (!vs.quorumUp && vs.config.sorryServer() != null && !vs.sorryServing) {
      LOG.info("{}: starting with quorum down", vsName);
      sorryIn(vs);
    }
    for (RsState rs : vs.servers.values()) {
      rs.alive = initial.alive().contains(rs.config.name());
      rs.weight = Math.max(0, initial.weights().getOrDefault(rs.config.name(), rs.weight));
      if ((rs.alive && vs.mayChangeServers()) || (rs.config.inhibit() && !rs.present)) {
        serverIn(vs, rs);
      }
    }
    sorryStandBy(vs);
  }

  /**
   * Applies one real server's verdict.
   *
   * <p>While the sorry server is serving the table is not touched at all. keepalived guards the
   * same way — "Change only if we have quorum or no sorry server" (ipwrapper.c:612-616) — and
   * without it a backend recovering during a quorum outage would be added back alongside the sorry
   * server, undoing the pool withdrawal one server at a time. The verdict is still recorded, so the
   * pool restored when quorum returns is the one that is healthy then, not the one that was healthy
   * when it was withdrawn.
   *
   * <p>If the table refuses the change the verdict is not recorded, so the same verdict applied
   * again retries it.
   */
  public synchronized void setAlive(String vsName, String rsName, boolean alive)
      throws TableException, UnknownServerException {
    VsState vs = vs(vsName);
    RsState rs = rs(vs, rsName);
    if (rs.alive == alive) {
      return;
    }
    verdict(
        () -> {
          if (vs.initialized && vs.mayChangeServers()) {
            if (alive) {
              rs.alive = true;
              // Up after start: slow start (not at init, where every server would be "new").
              long rampStart = rs.rampStart;
              startRamp(rs);
              try {
                // Before the add, so that a ramping table's first connection is already ramped.
                handRamp(vs, rs);
                serverIn(vs, rs);
              } catch (TableException e) {
                rs.alive = false;
                rs.rampStart = rampStart;
                throw e;
              }
              rampMayHaveStarted(rs);
            } else {
              serverOut(vs, rs, false);
            }
          } else if (vs.initialized) {
            LOG.info(
                "{}: {} is {} (sorry server serving, table unchanged)",
                vsName,
                rsName,
                alive ? "up" : "down");
          }
          rs.alive = alive;
        });
  }

  /**
   * Changes a real server's effective weight, for a weighted tracker (MISC_CHECK misc_dynamic,
   * track_file) that moved without the server going down. The weight is clamped to 0..{@link
   * Integer#MAX_VALUE} as keepalived's real_weight does. The table changes only if the server is
   * present, alive, and the sorry server is not serving (ipwrapper.c:718-720); otherwise the weight
   * is recorded and used when the server next goes in.
   */
  public synchronized void setWeight(String vsName, String rsName, long weight)
      throws TableException, UnknownServerException {
    VsState vs = vs(vsName);
    RsState rs = rs(vs, rsName);
    int clamped = (int) Math.max(0, Math.min(Integer.MAX_VALUE, weight));
    if (clamped == rs.weight) {
      return;
    }
    verdict(
        () -> {
          int old = rs.weight;
          rs.weight = clamped;
          if (vs.initialized && rs.present && rs.alive && vs.mayChangeServers()) {
            // A ramping server follows its ramp towards the new target.
            int w = current(rs);
            LOG.info(
                "{}: weight of {} {} -> {}{}",
                vsName,
                rsName,
                old,
                clamped,
                w == clamped ? "" : " (slow start: " + w + " now)");
            try {
              forEachService(vs, s -> table.setDest(s.key(), destFor(s, rs.config.dest(), w)));
              rs.written = w;
            } catch (TableException e) {
              rs.weight = old;
              throw e;
            }
          }
        });
  }

  /**
   * Starts (or restarts) a real server's slow start now, from weight 1: the hook for "the server is
   * back in service" events that are not a verdict, such as an operator's {@code ready} after
   * maintenance. A server without {@code slow_start}, or not serving, is not changed.
   *
   * @return whether a ramp started
   */
  public synchronized boolean startSlowStart(String vsName, String rsName)
      throws TableException, UnknownServerException {
    VsState vs = vs(vsName);
    RsState rs = rs(vs, rsName);
    if (!vs.initialized
        || !rs.present
        || !rs.alive
        || !vs.mayChangeServers()
        || rs.config.slowStart().isZero()
        || (!table.ramps() && rs.weight <= 1)) {
      return false;
    }
    startRamp(rs);
    handRamp(vs, rs);
    int w = current(rs);
    LOG.info(
        "{}: {} slow start over {} (weight {} of {}{})",
        vsName,
        rsName,
        rs.config.slowStart(),
        w,
        rs.weight,
        table.ramps() ? ", in the scheduler" : "");
    forEachService(vs, s -> table.setDest(s.key(), destFor(s, rs.config.dest(), w)));
    rs.written = w;
    rampMayHaveStarted(rs);
    return true;
  }

  /**
   * Steps the weights of ramping servers to where their slow start is now: called periodically (the
   * daemon: every 50 ms). A server changes weight only when it enters a new step, so a ramp is at
   * most {@link SlowStart#MAX_STEPS} calls per service.
   *
   * @return how many servers changed weight
   */
  public synchronized int stepSlowStarts() throws TableException {
    int changed = 0;
    for (VsState vs : vss.values()) {
      if (!vs.initialized || !vs.mayChangeServers()) {
        continue;
      }
      for (RsState rs : vs.servers.values()) {
        if (rs.rampStart < 0 || !rs.present || !rs.alive) {
          continue;
        }
        int w = current(rs);
        if (w != rs.written) {
          forEachService(vs, s -> table.setDest(s.key(), destFor(s, rs.config.dest(), w)));
          rs.written = w;
          changed++;
        }
        // Over only once its last step is in the table.
        if (rampOver(rs)) {
          rs.rampStart = -1;
          LOG.info("{}: {} slow start done (weight {})", vs.config.name(), rs.config.name(), w);
        }
      }
    }
    return changed;
  }

  /**
   * Runs {@code r} (under this applier's lock: it must not block or take other locks) whenever a
   * ramp starts, so the caller can run {@link #stepSlowStarts} only while {@link #rampsActive}.
   */
  public synchronized void onRampStart(Runnable r) {
    rampStarted = Objects.requireNonNull(r, "r");
  }

  /** Whether any real server is in its slow start. */
  public synchronized boolean rampsActive() {
    for (VsState vs : vss.values()) {
      for (RsState rs : vs.servers.values()) {
        if (rs.rampStart >= 0) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether the table ramps in its own scheduler ({@link RampTarget}) rather than by weights. */
  public boolean rampsInTable() {
    return table.ramps();
  }

  private void rampMayHaveStarted(RsState rs) {
    if (rs.rampStart >= 0) {
      rampStarted.run();
    }
  }

  /**
   * Tells a ramping table where the server's ramp is (or that it has none): once per service, by
   * the destination's key there. Nothing for a table that is given stepped weights.
   */
  private void handRamp(VsState vs, RsState rs) throws TableException {
    if (!table.ramps()) {
      return;
    }
    Ramp r =
        rs.rampStart < 0
            ? Ramp.NONE
            : new Ramp(
                java.time.Duration.ofNanos(Math.max(0, nanos.getAsLong() - rs.rampStart)),
                rs.config.slowStart());
    for (Service s : vs.config.services()) {
      table.ramp(s.key(), destFor(s, rs.config.dest(), 0).key(), r);
    }
  }

  /** The weight a ramping real server has now, or null when it is not ramping. */
  public synchronized Integer rampWeight(String vsName, String rsName)
      throws UnknownServerException {
    RsState rs = rs(vs(vsName), rsName);
    return rs.rampStart < 0 ? null : current(rs);
  }

  private void startRamp(RsState rs) {
    rs.rampStart = rs.config.slowStart().isZero() ? -1 : nanos.getAsLong();
  }

  /**
   * The weight the server should have now: its weight, or its ramp's step (its weight once the
   * ramp's time is up). No side effect: only {@link #stepSlowStarts} ends a ramp, after writing its
   * last step, so a status read in between cannot skip it.
   */
  private int current(RsState rs) {
    if (rs.rampStart < 0 || table.ramps()) {
      return rs.weight;
    }
    return SlowStart.weight(
        rs.weight, nanos.getAsLong() - rs.rampStart, rs.config.slowStart().toNanos());
  }

  private boolean rampOver(RsState rs) {
    if (rs.rampStart < 0) {
      return false;
    }
    long elapsed = nanos.getAsLong() - rs.rampStart;
    long duration = rs.config.slowStart().toNanos();
    // The table's own ramp ends with its time; a stepped one also once its last step is written.
    return table.ramps() ? elapsed >= duration : SlowStart.done(rs.weight, elapsed, duration);
  }

  /**
   * Applies a quorum transition.
   *
   * <p>The sorry server goes in <em>before</em> the real servers come out and comes out
   * <em>after</em> they go back in. Ordering it the other way leaves a window with no destination
   * at all, and a virtual server with no destinations refuses connections — which is precisely the
   * failure the sorry server exists to replace with something controlled.
   */
  public synchronized void quorum(String vsName, boolean up)
      throws TableException, UnknownServerException {
    VsState vs = vs(vsName);
    if (vs.quorumUp == up) {
      return;
    }
    verdict(
        () -> {
          vs.quorumUp = up;
          LOG.info("{}: quorum {}", vsName, up ? "gained" : "lost");
          if (!vs.initialized || vs.config.sorryServer() == null) {
            return;
          }
          table.begin();
          try {
            swapSorry(vs, up);
          } finally {
            table.commit();
          }
        });
  }

  private void swapSorry(VsState vs, boolean up) throws TableException {
    if (up && vs.sorryServing) {
      for (RsState rs : vs.servers.values()) {
        if (rs.alive) {
          serverIn(vs, rs);
        }
      }
      sorryOut(vs, false);
    } else if (!up && !vs.sorryServing) {
      sorryIn(vs);
      for (RsState rs : vs.servers.values()) {
        if (rs.alive) {
          serverOut(vs, rs, false);
        }
      }
    }
  }

  /**
   * An operator's {@code maint}: the server is out of the table as a failed check without inhibit
   * takes it out, whatever its {@code inhibit_on_failure}; cleared, an inhibit server that is not
   * alive goes back in at weight 0. The verdict itself comes through {@link #setAlive} ({@link
   * AdminApplier} sends both).
   */
  public synchronized void setMaint(String vsName, String rsName, boolean maint)
      throws TableException, UnknownServerException {
    VsState vs = vs(vsName);
    RsState rs = rs(vs, rsName);
    if (rs.maint == maint) {
      return;
    }
    verdict(
        () -> {
          rs.maint = maint;
          if (!vs.initialized) {
            return;
          }
          if (maint && rs.present) {
            serverOut(vs, rs, true);
          } else if (!maint && !rs.present && desiredWeight(vs, rs) != null) {
            serverIn(vs, rs);
          }
        });
  }

  /**
   * Overflow to the sorry server ({@code overflow_to_sorry_server}) for one service of the virtual
   * server: {@code full} raises the standing-by sorry server to its weight so the kernel's
   * scheduler, finding every real server overloaded or quiesced, picks it; {@code !full} lowers it
   * to 0 so new connections go to the pool again. Connections already on the sorry server stay
   * there (a weight change moves nothing).
   *
   * <p>While quorum is lost the sorry server serves anyway and nothing is changed or recorded; when
   * quorum returns the sorry server goes back to 0 and the next reading decides again (see
   * docs/apply.md, "Quorum and overflow").
   *
   * @return whether the table was changed
   */
  public synchronized boolean overflow(String vsName, ServiceKey key, boolean full)
      throws TableException, UnknownServerException {
    VsState vs = vs(vsName);
    Dest sorry = vs.config.sorryServer();
    if (!vs.config.overflow() || !vs.initialized || !vs.sorryPresent || vs.sorryServing) {
      return false;
    }
    Service service = null;
    for (Service s : vs.config.services()) {
      if (s.key().equals(key)) {
        service = s;
      }
    }
    if (service == null || full == vs.overflowing.contains(key)) {
      return false;
    }
    table.setDest(key, destFor(service, sorry, full ? sorry.weight() : 0));
    if (full) {
      vs.overflowing.add(key);
      LOG.info(
          "{}: {}: every real server is full or drained; new connections to the sorry "
              + "server {}",
          vsName,
          key,
          sorry.key());
    } else {
      vs.overflowing.remove(key);
      LOG.info("{}: {}: a real server has room again; new connections to the pool", vsName, key);
    }
    return true;
  }

  /** The services of the virtual server whose new connections overflow to the sorry server. */
  public synchronized Set<ServiceKey> overflowing(String vsName) throws UnknownServerException {
    return Set.copyOf(vs(vsName).overflowing);
  }

  /** Whether a destination for the real server is currently in the table. */
  public synchronized boolean present(String vsName, String rsName) throws UnknownServerException {
    return rs(vs(vsName), rsName).present;
  }

  /** Whether the virtual server's sorry server is serving (installed because quorum is lost). */
  public synchronized boolean sorryInstalled(String vsName) throws UnknownServerException {
    return vs(vsName).sorryServing;
  }

  /** The names of the configured virtual servers, in configuration order. */
  public synchronized List<String> names() {
    return List.copyOf(vss.keySet());
  }

  /** The virtual servers as currently configured. */
  public synchronized Map<String, VirtualServer> config() {
    Map<String, VirtualServer> m = new LinkedHashMap<>();
    vss.forEach((k, v) -> m.put(k, v.config));
    return m;
  }

  /** What the applier believes, for status output. */
  public synchronized List<VirtualServerStatus> status() {
    List<VirtualServerStatus> out = new ArrayList<>();
    for (VsState vs : vss.values()) {
      List<VirtualServerStatus.RealServerStatus> servers = new ArrayList<>();
      for (RsState rs : vs.servers.values()) {
        long now = nanos.getAsLong();
        boolean rampingNow =
            rs.rampStart >= 0
                && rs.present
                && rs.alive
                && !(table.ramps() && now - rs.rampStart >= rs.config.slowStart().toNanos());
        servers.add(
            new VirtualServerStatus.RealServerStatus(
                rs.config.name(),
                rs.config.dest(),
                rs.alive,
                rs.present,
                rs.weight,
                rs.config.inhibit(),
                rampingNow && !table.ramps() ? Math.max(1, current(rs)) : 0,
                rampingNow
                    ? java.time.Duration.ofNanos(Math.max(0, now - rs.rampStart))
                    : java.time.Duration.ZERO,
                rampingNow ? rs.config.slowStart() : java.time.Duration.ZERO));
      }
      out.add(
          new VirtualServerStatus(
              vs.config.name(),
              vs.config.services(),
              vs.initialized,
              vs.quorumUp,
              vs.config.sorryServer(),
              vs.sorryServing,
              servers));
    }
    return out;
  }

  /**
   * Swaps in a new configuration after a reload, changing the table by difference.
   *
   * <p>The presence tracking is <em>kept</em>, not reset. It records what is actually in the
   * kernel's table, and a reload does not empty the table — that is the whole point of diffing
   * rather than rebuilding. Resetting it would make the next verdict on a surviving backend use an
   * add where the destination already exists.
   *
   * <p>Entries for virtual servers that no longer exist are dropped (after their services are
   * deleted), so the map does not grow across reloads on a daemon that is up for months.
   *
   * <p>Virtual servers are matched by name, real servers by address and port (keepalived's
   * identity, so renaming one keeps its state). Deletions come first, as in keepalived's
   * clear_diff_services. A kept real server keeps its verdict and dynamic weight contribution; a
   * changed configured weight, forwarding method or threshold is pushed with a set. A new real
   * server starts down and not present (at weight 0 if inhibit): the framework's first verdict
   * brings it in, so a failed one is not re-added by a reload. A new virtual server is registered
   * but not installed until {@link #init}.
   */
  public synchronized void replace(Map<String, VirtualServer> newConfig) throws TableException {
    table.begin();
    try {
      replaceBatched(newConfig);
    } finally {
      table.commit();
    }
  }

  /**
   * {@link #replace}, all or nothing: if the table refuses any part of the change (or throws), the
   * applier's state goes back to what it was before and the table is converged back to it (drift
   * repair from that state), so the previous configuration keeps serving; then the failure is
   * rethrown. A table still refusing during the way back is logged, and the next drift repair
   * retries.
   */
  public synchronized void replaceOrRestore(Map<String, VirtualServer> newConfig)
      throws TableException {
    Map<String, VsState> saved = new LinkedHashMap<>();
    vss.forEach((k, v) -> saved.put(k, v.copy()));
    try {
      replace(newConfig);
    } catch (TableException | RuntimeException e) {
      vss.clear();
      vss.putAll(saved);
      try {
        repairDrift();
      } catch (TableException | RuntimeException again) {
        LOG.warn("restoring the previous table after a refused change: {}", again.getMessage());
      }
      throw e;
    }
  }

  private void replaceBatched(Map<String, VirtualServer> newConfig) throws TableException {
    for (VsState old : List.copyOf(vss.values())) {
      if (!newConfig.containsKey(old.config.name())) {
        LOG.info("{}: removed from the configuration", old.config.name());
        if (old.initialized) {
          removeAll(old);
        }
        vss.remove(old.config.name());
      }
    }
    Map<String, VsState> next = new LinkedHashMap<>();
    for (Map.Entry<String, VirtualServer> e : newConfig.entrySet()) {
      VsState old = vss.get(e.getKey());
      if (old == null) {
        next.put(e.getKey(), new VsState(e.getValue()));
      } else {
        next.put(
            e.getKey(), old.initialized ? reconcile(old, e.getValue()) : new VsState(e.getValue()));
      }
    }
    vss.clear();
    vss.putAll(next);
  }

  /**
   * Removes everything this applier installed: sorry servers, real servers and services. keepalived
   * does the same at shutdown unless told not to (clear_services, ipwrapper.c:372-398). Sent as one
   * batch: every operation is attempted and the first failure is rethrown at the end.
   */
  public synchronized void removeAll() throws TableException {
    table.begin();
    try {
      for (VsState vs : vss.values()) {
        if (vs.initialized) {
          removeAll(vs);
        }
      }
    } finally {
      table.commit();
    }
  }

  /**
   * {@code lvs_flush_on_stop VS}: deletes each service this applier installed, leaving the kernel
   * to take its destinations with it (no per-destination deletes), as keepalived's clear_service_vs
   * does in that mode. One batch; the first failure is rethrown at the end.
   */
  public synchronized void removeServices() throws TableException {
    table.begin();
    try {
      for (VsState vs : vss.values()) {
        if (!vs.initialized) {
          continue;
        }
        for (Service s : vs.config.services()) {
          LOG.info("Removing service {} ({})", s.key(), vs.config.name());
          table.delService(s.key());
        }
        forget(vs);
      }
    } finally {
      table.commit();
    }
  }

  /**
   * {@code lvs_flush_on_stop}: one flush of the whole table, services Fairway did not install
   * included. keepalived flushes only when its configuration has virtual servers (clear_services
   * returns early otherwise), and so does this.
   *
   * @return whether the table was flushed
   */
  public synchronized boolean flushTable() throws TableException {
    if (vss.isEmpty()) {
      return false;
    }
    LOG.info("Flushing the whole table (lvs_flush_on_stop)");
    table.flush();
    vss.values().forEach(Applier::forget);
    return true;
  }

  private static void forget(VsState vs) {
    vs.sorryPresent = false;
    vs.sorryServing = false;
    vs.overflowing.clear();
    vs.servers.values().forEach(rs -> rs.present = false);
  }

  /**
   * The table this applier wants: for every initialized virtual server, its services and the
   * destinations that should be in them at the weights they should have. Drift repair compares the
   * table with this.
   */
  public synchronized Map<ServiceKey, DesiredService> desired() {
    Map<ServiceKey, DesiredService> out = new LinkedHashMap<>();
    for (VsState vs : vss.values()) {
      if (!vs.initialized) {
        continue;
      }
      for (Service s : vs.config.services()) {
        Map<DestKey, Dest> dests = new LinkedHashMap<>();
        for (RsState rs : vs.servers.values()) {
          Integer w = desiredWeight(vs, rs);
          if (w != null) {
            Dest d = destFor(s, rs.config.dest(), w);
            dests.put(d.key(), d);
          }
        }
        Dest sorry = vs.config.sorryServer();
        if (sorry != null && (vs.sorryServing || vs.config.sorryStandsBy())) {
          Dest d = destFor(s, sorry, sorryWeight(vs, s));
          dests.put(d.key(), d);
        }
        out.put(s.key(), new DesiredService(s, dests));
      }
    }
    return out;
  }

  /**
   * Compares the table with {@link #desired()} and converges it: someone ran {@code ipvsadm}, or a
   * table call failed half way. Each difference is logged at WARN and returned. Services this
   * applier does not own are left alone.
   */
  public synchronized List<Drift> repairDrift() throws TableException {
    Map<ServiceKey, DesiredService> want = desired();
    List<Drift> drifts = DriftRepair.repair(table, want);
    for (Drift d : drifts) {
      LOG.warn("drift: {}", d);
    }
    // After convergence the table is what desired() says, so presence follows from it.
    for (VsState vs : vss.values()) {
      if (!vs.initialized) {
        continue;
      }
      for (RsState rs : vs.servers.values()) {
        rs.present = desiredWeight(vs, rs) != null;
      }
      vs.sorryPresent =
          vs.config.sorryServer() != null && (vs.sorryServing || vs.config.sorryStandsBy());
    }
    return drifts;
  }

  /** One service as the applier wants it. */
  public record DesiredService(Service service, Map<DestKey, Dest> dests) {
    public DesiredService {
      dests = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(dests));
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** The sorry server's weight in one service: serving (quorum lost) or overflowing, else 0. */
  private static int sorryWeight(VsState vs, Service s) {
    boolean on = vs.sorryServing || vs.overflowing.contains(s.key());
    return on ? vs.config.sorryServer().weight() : 0;
  }

  /** The weight a server should have in the table, or null when it should be absent. */
  private static Integer desiredWeight(VsState vs, RsState rs) {
    if (rs.maint) {
      return null;
    }
    boolean serving = rs.alive && !vs.sorryServing;
    if (serving) {
      return rs.rampStart >= 0 ? rs.written : rs.weight;
    }
    if (rs.config.inhibit()) {
      return 0;
    }
    return null;
  }

  private VsState reconcile(VsState old, VirtualServer cfg) throws TableException {
    VsState vs = new VsState(cfg);
    vs.initialized = true;
    vs.quorumUp = old.quorumUp;
    String name = cfg.name();

    Map<ServiceKey, Service> oldServices = new LinkedHashMap<>();
    old.config.services().forEach(s -> oldServices.put(s.key(), s));
    Map<ServiceKey, Service> newServices = new LinkedHashMap<>();
    cfg.services().forEach(s -> newServices.put(s.key(), s));
    for (ServiceKey k : oldServices.keySet()) {
      if (!newServices.containsKey(k)) {
        LOG.info("{}: removing service {}", name, k);
        table.delService(k);
      }
    }
    for (Service s : cfg.services()) {
      Service was = oldServices.get(s.key());
      if (was != null && !was.equals(s)) {
        LOG.info("{}: changing service {} -> {}", name, was, s);
        table.setService(s);
      }
    }

    for (Service s : cfg.services()) {
      if (!oldServices.containsKey(s.key())) {
        LOG.info("{}: adding service {}", name, s.key());
        table.addService(s);
      }
    }

    // Real servers by identity: address and configured port.
    Map<DestKey, RsState> oldByKey = new HashMap<>();
    old.servers.values().forEach(rs -> oldByKey.put(rs.config.dest().key(), rs));
    Map<DestKey, RealServer> newByKey = new HashMap<>();
    cfg.servers().values().forEach(rs -> newByKey.put(rs.dest().key(), rs));
    for (RsState rs : old.servers.values()) {
      if (!newByKey.containsKey(rs.config.dest().key()) && rs.present) {
        LOG.info("{}: removing {} (gone from the configuration)", name, rs.config.name());
        for (Service s : old.config.services()) {
          if (newServices.containsKey(s.key())) {
            table.delDest(s.key(), destFor(s, rs.config.dest(), 0).key());
          }
        }
      }
    }

    // The sorry server goes in before real servers come out and out after they are back.
    Dest oldSorry = old.config.sorryServer();
    Dest newSorry = cfg.sorryServer();
    boolean sameSorry =
        oldSorry != null && newSorry != null && oldSorry.key().equals(newSorry.key());
    boolean dropOldSorry = false;
    if (sameSorry) {
      vs.sorryServing = old.sorryServing;
      vs.sorryPresent = old.sorryPresent;
      if (cfg.overflow()) {
        // Still overflowing where it was: the next reading lowers it if the pool has room.
        old.overflowing.stream().filter(newServices::containsKey).forEach(vs.overflowing::add);
      }
      if (vs.sorryPresent && !vs.sorryServing && !cfg.sorryStandsBy()) {
        forEachService(vs, s -> table.delDest(s.key(), destFor(s, newSorry, 0).key()));
        vs.sorryPresent = false;
        vs.overflowing.clear();
      } else if (vs.sorryPresent) {
        for (Service s : cfg.services()) {
          if (!oldServices.containsKey(s.key())) {
            continue; // a new service: added with everything else below
          }
          int was = old.sorryServing || old.overflowing.contains(s.key()) ? oldSorry.weight() : 0;
          int w = sorryWeight(vs, s);
          if (w != was || !oldSorry.equals(newSorry)) {
            table.setDest(s.key(), destFor(s, newSorry, w));
          }
        }
      }
    } else {
      dropOldSorry = oldSorry != null && old.sorryPresent;
      // A virtual server below quorum gets its (new) sorry server, as keepalived's init disjunct.
      if (newSorry != null && (old.sorryServing || !vs.quorumUp)) {
        sorryIn(vs);
      }
    }

    for (RealServer rc : cfg.servers().values()) {
      RsState was = oldByKey.get(rc.dest().key());
      RsState rs = new RsState(rc);
      vs.servers.put(rc.name(), rs);
      if (was == null) {
        if (rc.inhibit()) {
          serverIn(vs, rs);
        }
        continue;
      }
      rs.alive = was.alive;
      rs.present = was.present;
      rs.maint = was.maint;
      rs.rampStart = was.rampStart;
      rs.written = was.written;
      if (rs.rampStart >= 0 && !rc.slowStart().equals(was.config.slowStart())) {
        handRamp(vs, rs); // the same ramp, with its new length
      }
      long w = (long) was.weight + rc.weight() - was.config.weight();
      rs.weight = (int) Math.max(0, Math.min(Integer.MAX_VALUE, w));
      Integer want = desiredWeight(vs, rs);
      Integer have = rs.present ? desiredWeight(old, was) : null;
      if (rs.present && want == null) {
        serverOut(vs, rs, true);
      } else if (!rs.present && want != null) {
        serverIn(vs, rs);
      } else if (rs.present
          && (!sameDest(was.config.dest(), rc.dest()) || !Objects.equals(want, have))) {
        LOG.info("{}: changing {} (weight {})", name, rc.name(), want);
        int ww = want;
        forEachService(vs, s -> table.setDest(s.key(), destFor(s, rc.dest(), ww)));
      }
    }

    if (dropOldSorry) {
      LOG.info("{}: removing sorry server {}", name, oldSorry.key());
      for (Service s : cfg.services()) {
        if (oldServices.containsKey(s.key())) {
          table.delDest(s.key(), destFor(s, oldSorry, 0).key());
        }
      }
    }

    // Services new to this virtual server (a group that grew) get every destination present;
    // those the steps above already wrote are set again, harmlessly.
    for (Service s : cfg.services()) {
      if (!oldServices.containsKey(s.key())) {
        for (RsState rs : vs.servers.values()) {
          Integer w = desiredWeight(vs, rs);
          if (w != null && rs.present) {
            table.addDest(s.key(), destFor(s, rs.config.dest(), w));
          }
        }
        if (vs.sorryPresent) {
          table.addDest(s.key(), destFor(s, newSorry, sorryWeight(vs, s)));
        }
      }
    }
    sorryStandBy(vs);
    return vs;
  }

  private static boolean sameDest(Dest a, Dest b) {
    return a.forwarding() == b.forwarding()
        && a.upperThreshold() == b.upperThreshold()
        && a.lowerThreshold() == b.lowerThreshold()
        && Objects.equals(a.tunnel(), b.tunnel());
  }

  private void removeAll(VsState vs) throws TableException {
    // Deleting a service deletes its destinations in the kernel; sorry and real servers go first
    // anyway so a table that shares nothing else behaves like keepalived's clear_service_vs.
    Dest sorry = vs.config.sorryServer();
    for (Service s : vs.config.services()) {
      if (sorry != null && vs.sorryPresent) {
        table.delDest(s.key(), destFor(s, sorry, 0).key());
      }
      for (RsState rs : vs.servers.values()) {
        if (rs.present) {
          table.delDest(s.key(), destFor(s, rs.config.dest(), 0).key());
        }
      }
      LOG.info("Removing service {} ({})", s.key(), vs.config.name());
      table.delService(s.key());
    }
    vs.sorryPresent = false;
    vs.sorryServing = false;
    vs.overflowing.clear();
    vs.servers.values().forEach(rs -> rs.present = false);
  }

  /** keepalived's ADD_DEST for a real server, with the inhibit rewrite (ipvswrapper.c:569-577). */
  private void serverIn(VsState vs, RsState rs) throws TableException {
    if (rs.maint) {
      return;
    }
    boolean serving = rs.alive && vs.mayChangeServers();
    if (!serving && rs.rampStart >= 0) {
      rs.rampStart = -1;
      handRamp(vs, rs);
    }
    int w = serving ? current(rs) : 0;
    rs.written = w;
    if (rs.present) {
      if (!rs.config.inhibit()) {
        return;
      }
      LOG.info("{}: enabling {} (weight {})", vs.config.name(), rs.config.name(), w);
      forEachService(vs, s -> table.setDest(s.key(), destFor(s, rs.config.dest(), w)));
    } else {
      LOG.info("{}: adding {} (weight {})", vs.config.name(), rs.config.name(), w);
      forEachService(vs, s -> table.addDest(s.key(), destFor(s, rs.config.dest(), w)));
      rs.present = true;
    }
  }

  /**
   * keepalived's DEL_DEST for a real server: an inhibit server is drained to weight 0 unless the
   * removal is forced (the server left the configuration).
   */
  private void serverOut(VsState vs, RsState rs, boolean force) throws TableException {
    if (rs.rampStart >= 0) {
      rs.rampStart = -1;
      handRamp(vs, rs);
    }
    if (rs.config.inhibit() && !force) {
      LOG.info("{}: disabling {} (weight 0)", vs.config.name(), rs.config.name());
      forEachService(vs, s -> table.setDest(s.key(), destFor(s, rs.config.dest(), 0)));
      rs.present = true;
      return;
    }
    LOG.info("{}: removing {}", vs.config.name(), rs.config.name());
    forEachService(vs, s -> table.delDest(s.key(), destFor(s, rs.config.dest(), 0).key()));
    rs.present = false;
  }

  private void sorryIn(VsState vs) throws TableException {
    Dest sorry = vs.config.sorryServer();
    LOG.info(
        "{}: {} sorry server {}",
        vs.config.name(),
        vs.sorryPresent ? "enabling" : "adding",
        sorry.key());
    if (vs.sorryPresent) {
      forEachService(vs, s -> table.setDest(s.key(), destFor(s, sorry, sorry.weight())));
    } else {
      forEachService(vs, s -> table.addDest(s.key(), destFor(s, sorry, sorry.weight())));
    }
    vs.sorryPresent = true;
    vs.sorryServing = true;
    // Quorum loss owns the sorry server now; overflow is decided afresh when quorum returns.
    vs.overflowing.clear();
  }

  /**
   * The sorry server stops serving. Overflow starts again from "the pool has room": the real
   * servers have just come back, and the counters read while they were out say nothing about them.
   */
  private void sorryOut(VsState vs, boolean force) throws TableException {
    Dest sorry = vs.config.sorryServer();
    vs.overflowing.clear();
    if (vs.config.sorryStandsBy() && !force) {
      LOG.info("{}: disabling sorry server {} (weight 0)", vs.config.name(), sorry.key());
      forEachService(vs, s -> table.setDest(s.key(), destFor(s, sorry, 0)));
    } else {
      LOG.info("{}: removing sorry server {}", vs.config.name(), sorry.key());
      forEachService(vs, s -> table.delDest(s.key(), destFor(s, sorry, 0).key()));
      vs.sorryPresent = false;
    }
    vs.sorryServing = false;
  }

  /**
   * An inhibit sorry server sits in the table at weight 0 from startup (ipwrapper.c:661-673); so
   * does one that takes overflow, so that overflowing is a weight change.
   */
  private void sorryStandBy(VsState vs) throws TableException {
    Dest sorry = vs.config.sorryServer();
    if (vs.config.sorryStandsBy() && !vs.sorryPresent) {
      forEachService(vs, s -> table.addDest(s.key(), destFor(s, sorry, 0)));
      vs.sorryPresent = true;
    }
  }

  /**
   * The destination as the kernel gets it for one service: direct routing and tunnelling cannot
   * change the port, so their destinations take the service's (0 for a fwmark service), as
   * keepalived's ipvs_cmd does (ipvswrapper.c:601-621).
   */
  static Dest destFor(Service s, Dest d, int weight) {
    int port = d.port();
    if (d.forwarding() != ForwardingMethod.MASQ) {
      port = s.key().isFwmark() ? 0 : s.key().port();
    }
    return new Dest(
        d.address(),
        port,
        d.forwarding(),
        weight,
        d.upperThreshold(),
        d.lowerThreshold(),
        d.tunnel());
  }

  private interface ServiceOp {
    void apply(Service s) throws TableException;
  }

  private static void forEachService(VsState vs, ServiceOp op) throws TableException {
    for (Service s : vs.config.services()) {
      op.apply(s);
    }
  }

  private VsState vs(String name) throws UnknownServerException {
    VsState vs = vss.get(name);
    if (vs == null) {
      throw new UnknownServerException(name, null);
    }
    return vs;
  }

  private static RsState rs(VsState vs, String name) throws UnknownServerException {
    RsState rs = vs.servers.get(name);
    if (rs == null) {
      throw new UnknownServerException(vs.config.name(), name);
    }
    return rs;
  }

  private static final class VsState {
    final VirtualServer config;
    final Map<String, RsState> servers = new LinkedHashMap<>();
    boolean initialized;
    boolean quorumUp;

    /** The sorry server is in the table at its weight because quorum is lost. */
    boolean sorryServing;

    /** The sorry server is in the table at all (at weight 0 when inhibit and not serving). */
    boolean sorryPresent;

    /** Services whose pool is full, so the standing-by sorry server is at its weight. */
    final Set<ServiceKey> overflowing = new HashSet<>();

    VsState(VirtualServer config) {
      this.config = config;
      for (RealServer rs : config.servers().values()) {
        servers.put(rs.name(), new RsState(rs));
      }
    }

    /** An independent copy, to go back to when a change fails. */
    VsState copy() {
      VsState c = new VsState(config);
      c.servers.clear();
      servers.forEach((k, rs) -> c.servers.put(k, rs.copy()));
      c.initialized = initialized;
      c.quorumUp = quorumUp;
      c.sorryServing = sorryServing;
      c.sorryPresent = sorryPresent;
      return c;
    }

    /** "Change only if we have quorum or no sorry server" (ipwrapper.c:612-616). */
    boolean mayChangeServers() {
      return quorumUp || config.sorryServer() == null || !sorryServing;
    }
  }

  private static final class RsState {
    final RealServer config;
    boolean alive;
    boolean present;
    int weight;

    /** An operator's maint: out of the table even with inhibit. */
    boolean maint;

    /** When its slow start began (nanos), or -1 when it is not ramping. */
    long rampStart = -1;

    /** The weight last written for it while serving (the ramp's current step). */
    int written;

    RsState(RealServer config) {
      this.config = config;
      this.weight = config.weight();
    }

    RsState copy() {
      RsState c = new RsState(config);
      c.alive = alive;
      c.present = present;
      c.weight = weight;
      c.maint = maint;
      return c;
    }
  }
}

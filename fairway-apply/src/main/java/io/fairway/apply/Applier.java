package io.fairway.apply;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
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
 *
 * <p>The work is split by concern, as keepalived splits ipwrapper.c: {@link Verdicts} (what a
 * verdict moves, in which order), {@link ServerMoves} (a real server in and out of the table),
 * {@link RampSteps} (slow start), {@link SorryMoves} (quorum and overflow), {@link Reload} (a new
 * configuration by difference), {@link DesiredTable} (what drift repair converges to) and {@link
 * StatusView}. The state they work on is {@link VsState} and {@link RsState}, each one immutable
 * record replaced on every change, so that a copy saved before a reload restores all of it.
 */
public final class Applier {
  private static final Logger LOG = LoggerFactory.getLogger(Applier.class);

  private final TolerantTable table;
  private final Map<String, VsState> vss = new LinkedHashMap<>();

  /** Holds the table's publication across verdicts that arrive together, once enabled. */
  private final PublicationHold hold;

  private final RampSteps ramps;
  private final ServerMoves moves;
  private final SorryMoves sorry;
  private final Reload reload;
  private final Verdicts verdicts;

  /**
   * An applier for the given virtual servers, keyed by name. Nothing is written until {@link
   * #init}.
   */
  public Applier(Table table, Map<String, ServiceBinding> vs) {
    this(table, vs, System::nanoTime);
  }

  /** The same, with the clock slow start ramps are timed by (tests drive it by hand). */
  public Applier(Table table, Map<String, ServiceBinding> vs, LongSupplier nanos) {
    Objects.requireNonNull(nanos, "nanos");
    this.hold = new PublicationHold(Objects.requireNonNull(table, "table"), nanos);
    this.table = new TolerantTable(table, hold);
    this.ramps = new RampSteps(this.table, nanos);
    this.moves = new ServerMoves(this.table, ramps);
    this.sorry = new SorryMoves(this.table, moves);
    this.reload = new Reload(this.table, ramps, moves, sorry);
    this.verdicts = new Verdicts(this.table, ramps, moves, sorry);
    for (Map.Entry<String, ServiceBinding> e : vs.entrySet()) {
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
    return vs(vsName).initialized();
  }

  /** The last verdict recorded for a real server. */
  public synchronized boolean alive(String vsName, String rsName) throws UnknownServerException {
    return vs(vsName).rs(rsName).alive();
  }

  /**
   * Reads the table back, serialised with every other call, since a table is used by one thread at
   * a time.
   */
  public synchronized List<ServiceEntry> readBack() throws TableException {
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
      vs.rs(rsName);
    }
    for (String rsName : initial.weights().keySet()) {
      vs.rs(rsName);
    }
    table.begin();
    try {
      verdicts.init(vs, initial);
    } finally {
      table.commit();
    }
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
    RsState rs = vs.rs(rsName);
    if (rs.alive() == alive) {
      return;
    }
    verdict(() -> verdicts.alive(vsName, vs, rs, alive));
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
    RsState rs = vs.rs(rsName);
    int clamped = (int) Math.max(0, Math.min(Integer.MAX_VALUE, weight));
    if (clamped == rs.weight()) {
      return;
    }
    verdict(() -> verdicts.weight(vsName, vs, rs, clamped));
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
    RsState rs = vs.rs(rsName);
    return verdicts.slowStart(vsName, vs, rs);
  }

  /**
   * Steps the weights of ramping servers to where their slow start is now: called periodically (the
   * daemon: every 50 ms). A server changes weight only when it enters a new step, so a ramp is at
   * most {@link SlowStartSteps#MAX_STEPS} calls per service.
   *
   * @return how many servers changed weight
   */
  public synchronized int stepSlowStarts() throws TableException {
    return ramps.step(vss.values());
  }

  /**
   * Runs {@code r} (under this applier's lock: it must not block or take other locks) whenever a
   * ramp starts, so the caller can run {@link #stepSlowStarts} only while {@link #rampsActive}.
   */
  public synchronized void onRampStart(Runnable r) {
    ramps.onStart(r);
  }

  /** Whether any real server is in its slow start. */
  public synchronized boolean rampsActive() {
    return RampSteps.active(vss.values());
  }

  /**
   * Whether the table ramps in its own scheduler ({@link io.fairway.table.RampTarget}) rather than
   * by weights.
   */
  public boolean rampsInTable() {
    return table.ramps();
  }

  /** The weight a ramping real server has now, or null when it is not ramping. */
  public synchronized @Nullable Integer rampWeight(String vsName, String rsName)
      throws UnknownServerException {
    RsState rs = vs(vsName).rs(rsName);
    return rs.ramping() ? ramps.current(rs) : null;
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
    if (vs.quorumUp() == up) {
      return;
    }
    verdict(() -> verdicts.quorum(vsName, vs, up));
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
    RsState rs = vs.rs(rsName);
    if (rs.maint() == maint) {
      return;
    }
    verdict(() -> verdicts.maint(vs, rs, maint));
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
    return sorry.overflow(vs(vsName), key, full);
  }

  /** The services of the virtual server whose new connections overflow to the sorry server. */
  public synchronized Set<ServiceKey> overflowing(String vsName) throws UnknownServerException {
    return vs(vsName).overflowing();
  }

  /** Whether a destination for the real server is currently in the table. */
  public synchronized boolean present(String vsName, String rsName) throws UnknownServerException {
    return vs(vsName).rs(rsName).present();
  }

  /** Whether the virtual server's sorry server is serving (installed because quorum is lost). */
  public synchronized boolean sorryInstalled(String vsName) throws UnknownServerException {
    return vs(vsName).sorryServing();
  }

  /** The names of the configured virtual servers, in configuration order. */
  public synchronized List<String> names() {
    return List.copyOf(vss.keySet());
  }

  /** The virtual servers as currently configured. */
  public synchronized Map<String, ServiceBinding> config() {
    Map<String, ServiceBinding> m = new LinkedHashMap<>();
    vss.forEach((k, v) -> m.put(k, v.config));
    return m;
  }

  /** What the applier believes, for status output. */
  public synchronized List<VirtualServerStatus> status() {
    return StatusView.of(vss.values(), ramps);
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
  public synchronized void replace(Map<String, ServiceBinding> newConfig) throws TableException {
    table.begin();
    try {
      reload.replace(vss, newConfig);
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
  public synchronized void replaceOrRestore(Map<String, ServiceBinding> newConfig)
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

  /**
   * Removes everything this applier installed: sorry servers, real servers and services. keepalived
   * does the same at shutdown unless told not to (clear_services, ipwrapper.c:372-398). Sent as one
   * batch: every operation is attempted and the first failure is rethrown at the end.
   */
  public synchronized void removeAll() throws TableException {
    table.begin();
    try {
      for (VsState vs : vss.values()) {
        if (vs.initialized()) {
          reload.removeAll(vs);
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
      reload.removeServices(vss.values());
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
    vss.values().forEach(Reload::forget);
    return true;
  }

  /**
   * The table this applier wants: for every initialized virtual server, its services and the
   * destinations that should be in them at the weights they should have. Drift repair compares the
   * table with this.
   */
  public synchronized Map<ServiceKey, DesiredService> desired() {
    return DesiredTable.of(vss.values());
  }

  /**
   * Compares the table with {@link #desired()} and converges it: someone ran {@code ipvsadm}, or a
   * table call failed half way. Each difference is logged at WARN and returned. Services this
   * applier does not own are left alone.
   */
  public synchronized List<Drift> repairDrift() throws TableException {
    List<Drift> drifts = DriftRepair.repair(table, desired());
    for (Drift d : drifts) {
      LOG.warn("drift: {}", d);
    }
    DesiredTable.converged(vss.values());
    return drifts;
  }

  /** One service as the applier wants it. */
  public record DesiredService(Service service, Map<DestKey, Dest> dests) {
    public DesiredService {
      dests = Collections.unmodifiableMap(new LinkedHashMap<>(dests));
    }
  }

  private VsState vs(String name) throws UnknownServerException {
    VsState vs = vss.get(name);
    if (vs == null) {
      throw new UnknownServerException(name, null);
    }
    return vs;
  }
}

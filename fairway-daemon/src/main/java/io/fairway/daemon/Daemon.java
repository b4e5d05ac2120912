package io.fairway.daemon;

import io.fairway.apply.AdminApplier;
import io.fairway.apply.AdminEvent;
import io.fairway.apply.Applier;
import io.fairway.apply.LvsHousekeeping;
import io.fairway.apply.OverflowWatch;
import io.fairway.apply.ServerAdmin;
import io.fairway.apply.UnknownServerException;
import io.fairway.check.CheckConfigException;
import io.fairway.check.engine.CheckEngine;
import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.daemon.announce.AnnounceLifecycle;
import io.fairway.daemon.announce.AnnounceStatus;
import io.fairway.daemon.announce.Announcing;
import io.fairway.daemon.announce.Routes;
import io.fairway.daemon.announce.SloppyTcp;
import io.fairway.plan.Plan;
import io.fairway.plan.PlanTarget;
import io.fairway.table.ServiceEntry;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running load balancer: configuration → check engine → applier → table.
 *
 * <p>Lifecycle: {@link #start} loads the file and installs it; {@link #reload} (SIGHUP) loads the
 * file again and changes the table by difference, refusing an invalid file while the running
 * configuration keeps working; {@link #stop} (SIGTERM) removes what Fairway installed, as
 * keepalived does at shutdown. A periodic read-back repairs drift (someone ran {@code ipvsadm}).
 *
 * <p>Reload, start and stop are serialised by this object's monitor.
 */
public final class Daemon implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);

  private final Path file;
  private final Loader loader;
  private final Table table;
  private final Supplier<CheckEngine.Builder> engines;
  private final Duration driftInterval;
  private final Clock clock;

  /** lvs_timeouts, lvs_flush, lvs_flush_on_stop: around the applier, not inside it. */
  private final LvsHousekeeping lvs;

  private final EventHub events;

  /** Each real server's last check attempt, for the status view. */
  private final CheckAttempts attempts;

  private List<ServerAdmin> restoredAdmin = List.of();

  /**
   * Volatile: the announcing thread reads its status without this object's lock. Null until {@link
   * #start}, as are the admin layer, the listener and the engine.
   */
  private volatile @Nullable Applier applier;

  /** Where announced routes go (the kernel's tables; tests give memory). */
  private Routes.Opener announceOpener = Routes.Opener.KERNEL;

  /** Announcing by BGP (announce_table) and lvs_sloppy_tcp; null until {@link #start}. */
  private volatile @Nullable AnnounceLifecycle announce;

  /** The operators' settings in front of the applier; verdicts go through it. */
  private @Nullable AdminApplier admin;

  /** The plan being run; what a failed reload goes back to. */
  private Plan plan = Plan.EMPTY;

  private @Nullable ApplyingListener listener;
  private @Nullable CheckEngine engine;

  /** The periodic work (drift repair, overflow watch, slow start); null until {@link #start}. */
  private volatile @Nullable DaemonTimers timers;

  /** overflow_to_sorry_server on a table that cannot overflow by itself; zero = not watched. */
  private Duration overflowInterval = Duration.ZERO;

  private final AtomicInteger reloads = new AtomicInteger();

  /** One reload at a time; taken before this object's monitor, never inside it. */
  private final Object reloading = new Object();

  /** Why the parts {@link #start} makes are there: a reload or a read of them comes after it. */
  private static final String STARTED = "the daemon is started";

  /**
   * @param file the keepalived.conf to run
   * @param loader reads it
   * @param table where the table goes (the kernel's IPVS or the userspace proxy)
   * @param engines makes a check engine builder (the daemon sets the listener); tests inject
   *     scripted checkers here
   * @param driftInterval how often to read the table back and repair drift; zero disables
   */
  public Daemon(
      Path file,
      Loader loader,
      Table table,
      Supplier<CheckEngine.Builder> engines,
      Duration driftInterval,
      Clock clock) {
    this.file = Objects.requireNonNull(file);
    this.loader = Objects.requireNonNull(loader);
    this.table = Objects.requireNonNull(table);
    this.engines = Objects.requireNonNull(engines);
    this.driftInterval = Objects.requireNonNull(driftInterval);
    this.clock = clock;
    this.lvs = new LvsHousekeeping(table);
    this.events = new EventHub(clock == null ? Clock.systemUTC() : clock);
    this.attempts = new CheckAttempts(clock);
    // Any change of verdict, quorum, sorry server, admin or reload may change what to announce.
    events.listen(
        e -> {
          AnnounceLifecycle an = announce;
          if (an != null && !e.kind().equals(EventKind.ANNOUNCE.wire())) {
            an.poke();
          }
        });
  }

  /** Where announced routes go; set before {@link #start} (tests). */
  public synchronized Daemon announceRoutes(Routes.Opener opener) {
    this.announceOpener = Objects.requireNonNull(opener);
    return this;
  }

  /** The event stream: verdicts, weights, quorum, sorry server, reloads, admin actions. */
  public EventHub events() {
    return events;
  }

  /** Admin settings to apply at {@link #start} (from {@code --state-file}). */
  public synchronized void restoreAdmin(List<ServerAdmin> saved) {
    restoredAdmin = List.copyOf(saved);
  }

  /**
   * How often to read the kernel's counters for {@code overflow_to_sorry_server} ({@link
   * OverflowWatch}); zero (the default) for a table that overflows by itself, as the userspace
   * proxy does. Set before {@link #start}.
   */
  public synchronized Daemon overflowInterval(Duration interval) {
    if (interval.isNegative()) {
      throw new IllegalArgumentException("overflow interval must be >= 0: " + interval);
    }
    this.overflowInterval = interval;
    return this;
  }

  /**
   * Loads the configuration, installs it and starts checking.
   *
   * @throws Loader.LoadException the file is invalid (nothing was installed)
   * @throws TableException the table refused the initial installation
   * @throws CheckConfigException a checker cannot work (missing script, unresolvable name)
   */
  public synchronized void start() throws Loader.LoadException, TableException {
    Loaded loaded = loader.load(file);
    loaded.warnings().forEach(w -> LOG.warn("{}", w));
    if (table instanceof PlanTarget t) {
      String why = t.refusal(loaded.plan());
      if (why != null) {
        throw new Loader.LoadException(why);
      }
      t.apply(loaded.plan());
    }
    plan = loaded.plan();
    // keepalived's order: timeouts, then lvs_flush, then the first service.
    lvs.start(loaded.lvs());
    applier = new Applier(table, loaded.bindings());
    AnnounceLifecycle an = startAnnouncing(loaded);
    admin = new AdminApplier(applier, loaded.quorumRules(), this::adminEvent);
    for (ServerAdmin unknown : admin.restore(restoredAdmin)) {
      LOG.warn(
          "state file: {} {} is not in the configuration, its admin state {} is dropped",
          unknown.virtualServer(),
          unknown.realServer(),
          unknown.state().wire());
    }
    listener = new ApplyingListener(admin, clock, events);
    engine = newEngine(listener);
    try {
      engine.start(loaded.specs());
    } catch (ApplyingListener.TableFailure e) {
      engine.close();
      throw (TableException) e.getCause();
    }
    // The first pass: services whose initial state can serve (no alpha) are announced now.
    an.poke();
    LOG.info("running {} ({} virtual servers)", file, loaded.bindings().size());
    startTimers(applier, an);
  }

  private CheckEngine newEngine(ApplyingListener l) {
    return engines.get().listener(l).alsoObserver(attempts).build();
  }

  /**
   * Opens the announce table (removing the stale routes a crash left) and sets lvs_sloppy_tcp on
   * the kernel plane; nothing is announced before the first pass after the engine's initial state.
   *
   * @return the lifecycle, also kept in {@link #announce}
   */
  private AnnounceLifecycle startAnnouncing(Loaded loaded) throws TableException {
    Announcing announcing =
        new Announcing(
            announceOpener,
            this::applierStatus,
            change -> events.publish(EventKind.ANNOUNCE, null, null, change));
    AnnounceLifecycle an =
        new AnnounceLifecycle(
            announcing,
            table instanceof io.fairway.ipvs.kernel.IpvsKernelTable
                ? new SloppyTcp(SloppyTcp.PROC)
                : null,
            file.toString());
    announce = an;
    try {
      an.start(loaded.announce()).forEach(w -> LOG.warn("{}", w));
    } catch (IOException e) {
      // One line naming the file and the keyword; fairway run prints it as it is.
      throw new TableException(
          TableException.Reason.OTHER,
          Objects.requireNonNull(e.getMessage(), "start's errors name the file and the keyword"));
    }
    return an;
  }

  /**
   * Starts the periodic work with the applier in hand, not through this object's lock: {@link
   * #stop} holds it while it waits for the timers.
   */
  private void startTimers(Applier a, AnnounceLifecycle an) {
    DaemonTimers t = new DaemonTimers(a);
    timers = t;
    // Verdicts that arrive together (the first round of checks finds every dead server within
    // seconds) are published together, the release on this thread.
    a.coalesceVerdicts(t::later);
    if (!driftInterval.isZero()) {
      t.every(
          driftInterval,
          () -> {
            repairDrift(a);
            an.poke();
          });
    }
    t.stepWhileRamping();
    if (!overflowInterval.isZero()) {
      t.watchOverflow(overflowInterval);
    }
  }

  private List<io.fairway.apply.VirtualServerStatus> applierStatus() {
    Applier a = applier;
    return a == null ? List.of() : a.status();
  }

  /** Whether the slow start step is scheduled now (it is only while a ramp runs). */
  boolean slowStartTicking() {
    DaemonTimers t = timers;
    return t != null && t.slowStartTicking();
  }

  /**
   * Loads the file again and applies the difference. An invalid file is refused: the running
   * configuration, its checkers and the table stay as they are.
   *
   * @return null when the reload was applied, else the one-line reason it was refused (nothing
   *     changed), or {@code partially applied; not applied: ...} when the table refused what the
   *     new servers' first verdicts asked (the rest is in place)
   */
  public @Nullable String reload() {
    // One reload at a time, but the parse runs outside the daemon's lock: status, drift repair
    // and the check engine's verdicts go on while a large (or hostile) file is read.
    synchronized (reloading) {
      Loaded loaded;
      try {
        loaded = loader.load(file);
      } catch (Loader.LoadException e) {
        return refuse(e.getMessage());
      } catch (OutOfMemoryError e) {
        // The parse's garbage is unreachable once we are here: the running configuration is
        // intact, and the budget (ParseLimits) makes this a bug, reported as one line.
        return refuse(file + ": out of memory while loading the file (" + e.getMessage() + ")");
      }
      synchronized (this) {
        String why = table instanceof PlanTarget t ? t.refusal(loaded.plan()) : null;
        if (why != null) {
          return refuse(why);
        }
        return apply(loaded);
      }
    }
  }

  private @Nullable String apply(Loaded loaded) {
    loaded.warnings().forEach(w -> LOG.warn("{}", w));
    List<VirtualServerSpec> specs = AlphaOverride.apply(loaded.specs(), this::knownVerdict);
    Plan before = plan;
    String rolledBack = replaceBindings(loaded, before);
    if (rolledBack != null) {
      return rolledBack;
    }
    Objects.requireNonNull(listener, STARTED).retain(loaded.bindings().keySet());
    attempts.retain(loaded.bindings().keySet());
    // What the table refuses from here on (a server's first verdict adds it) is not rolled
    // back; it is reported, never called "reloaded".
    List<String> refused = new ArrayList<>();
    try {
      lvs.reload(loaded.lvs());
    } catch (TableException e) {
      LOG.error("reload: lvs_timeouts: {}", e.getMessage());
      refused.add("lvs_timeouts: " + e.getMessage());
    }
    refused.addAll(Objects.requireNonNull(announce, STARTED).reload(loaded.announce()));
    plan = loaded.plan();
    restartEngine(specs, refused);
    reloads.incrementAndGet();
    return reported(loaded, before, refused);
  }

  /**
   * The new plan's settings first, so services the applier adds start with them, then the new
   * bindings through the admin layer (operators' settings of servers that still exist are kept).
   *
   * @return null when both are in place, else the refusal (the previous plan is back)
   */
  private @Nullable String replaceBindings(Loaded loaded, Plan before) {
    if (table instanceof PlanTarget t) {
      t.apply(loaded.plan());
    }
    try {
      Objects.requireNonNull(admin, STARTED).replace(loaded.bindings(), loaded.quorumRules());
      return null;
    } catch (TableException | RuntimeException e) {
      if (table instanceof PlanTarget t) {
        t.apply(before);
      }
      // The old engine was never closed: it keeps checking the old plan, which keeps serving.
      return refuse("the table refused the change (" + e.getMessage() + "); rolled back");
    }
  }

  /** A new check engine for the reloaded specs, taking over the previous one's state. */
  private void restartEngine(List<VirtualServerSpec> specs, List<String> refused) {
    CheckEngine previous = Objects.requireNonNull(engine, STARTED);
    previous.close();
    engine = newEngine(Objects.requireNonNull(listener, STARTED));
    try {
      engine.start(specs, previous);
    } catch (ApplyingListener.TableFailure e) {
      LOG.warn("reload: table refused part of the change: {}", e.getMessage());
      refused.add(e.getMessage());
    } catch (CheckConfigException e) {
      // The loader validated scripts and files; this is a checker that failed to start anyway.
      LOG.error("reload: a checker cannot start: {}", e.getMessage());
      refused.add("a checker cannot start: " + e.getMessage());
    }
  }

  /** Logs and publishes an applied reload; what {@link #reload} returns for it. */
  private @Nullable String reported(Loaded loaded, Plan before, List<String> refused) {
    if (!refused.isEmpty()) {
      String parts = String.join("; ", refused);
      LOG.warn(
          "reload of {} partially applied ({} virtual servers); not applied: {}",
          file,
          loaded.bindings().size(),
          parts);
      return "partially applied; not applied: " + parts;
    }
    List<String> changes = plan.changesSince(before);
    String what =
        loaded.bindings().size()
            + " virtual servers"
            + (changes.isEmpty() ? ", plan unchanged" : ": " + String.join("; ", changes));
    LOG.info("reloaded {} ({})", file, what);
    events.publish(EventKind.RELOAD_OK, null, null, "reloaded " + file + " (" + what + ")");
    return null;
  }

  /** One log line, however many errors; the running configuration stays. */
  private String refuse(String message) {
    String oneLine = String.join("; ", message.lines().toList());
    LOG.error("reload refused, still running the previous configuration: {}", oneLine);
    events.publish(EventKind.RELOAD_REFUSED, null, null, oneLine);
    return oneLine;
  }

  /** The plan being run. */
  public synchronized Plan plan() {
    return plan;
  }

  /** How many reloads were applied. */
  public int reloads() {
    return reloads.get();
  }

  private @Nullable Boolean knownVerdict(String vs, String rs) {
    try {
      return Objects.requireNonNull(admin, STARTED).alive(vs, rs);
    } catch (UnknownServerException e) {
      return null;
    }
  }

  /** One drift-repair pass; logged, never thrown (the next pass retries). */
  public void repairDrift() {
    Applier a;
    synchronized (this) {
      a = applier;
    }
    if (a != null) {
      repairDrift(a);
    }
  }

  private static void repairDrift(Applier a) {
    try {
      a.repairDrift();
    } catch (TableException | RuntimeException e) {
      LOG.warn("drift repair failed: {}", e.getMessage());
    }
  }

  /** The applier (for status and tests). */
  public synchronized Applier applier() {
    return Objects.requireNonNull(applier, STARTED);
  }

  /** The operators' drain / maint / ready / weight in front of the applier. */
  public synchronized AdminApplier admin() {
    return Objects.requireNonNull(admin, STARTED);
  }

  /** Whether the configuration is loaded and the table installed. */
  public synchronized boolean ready() {
    return admin != null;
  }

  private void adminEvent(AdminEvent e) {
    EventKind k =
        switch (e.kind()) {
          case ADMIN -> EventKind.ADMIN;
          case QUORUM_UP -> EventKind.QUORUM_UP;
          case QUORUM_DOWN -> EventKind.QUORUM_DOWN;
          case SORRY_IN -> EventKind.SORRY_IN;
          case SORRY_OUT -> EventKind.SORRY_OUT;
        };
    events.publish(k, e.virtualServer(), e.realServer(), e.reason());
  }

  /** Each real server's last check attempt. */
  public CheckAttempts attempts() {
    return attempts;
  }

  public synchronized ApplyingListener listener() {
    return Objects.requireNonNull(listener, STARTED);
  }

  /** What {@code fairway status} prints. */
  public String status() {
    Applier a;
    ApplyingListener l;
    Plan p;
    synchronized (this) {
      a = Objects.requireNonNull(applier, STARTED);
      l = Objects.requireNonNull(listener, STARTED);
      p = plan;
    }
    List<ServiceEntry> entries;
    try {
      entries = a.readBack();
    } catch (TableException e) {
      return "fairway: cannot read the table: " + e.getMessage() + "\n";
    }
    return StatusFormat.render(entries, a.status(), l.health(), p)
        + AnnounceStatus.text(announcing());
  }

  /** Announcing by BGP: its settings and state (null before {@link #start}). */
  public @Nullable Announcing announcing() {
    AnnounceLifecycle an = announce;
    return an == null ? null : an.announcing();
  }

  /**
   * {@code fairway announce on|off}: withdraws or restores this node's routes now; kept across
   * reloads (not across a restart).
   *
   * @return whether the setting changed
   */
  public boolean announce(boolean on) {
    Announcing an = announcing();
    if (an == null) {
      return false;
    }
    boolean changed = an.enabled(on);
    if (changed) {
      events.publish(
          EventKind.ANNOUNCE, null, null, "announce " + (on ? "on" : "off") + " (operator)");
    }
    return changed;
  }

  /**
   * The first step of a stop: every route withdrawn, none to come back.
   *
   * @return how long to wait now for the routers to move new flows away: {@code
   *     announce_withdraw_delay}, or zero when nothing was announced
   */
  public Duration withdrawAnnouncements() {
    AnnounceLifecycle an = announce;
    return an == null ? Duration.ZERO : an.withdraw();
  }

  /**
   * Stops checking and removes what Fairway installed (sorry servers, real servers, services), or
   * what {@code lvs_flush_on_stop} says, then puts back timeouts {@code lvs_timeouts} changed.
   */
  public synchronized void stop() {
    stopTimers();
    if (engine != null) {
      // shutdown(), not close(): with omega the operator asked for notify_down and quorum_down
      // scripts when the service goes away, and this is the only place it does.
      engine.shutdown();
    }
    publishHeld();
    try {
      lvs.stop(applier);
    } catch (TableException e) {
      LOG.warn("could not remove everything at shutdown: {}", e.getMessage());
    }
    stopAnnouncing();
  }

  /**
   * Removes the announced routes and puts lvs_sloppy_tcp back ({@link AnnounceLifecycle#close}).
   */
  private void stopAnnouncing() {
    if (announce != null) {
      announce.close();
    }
  }

  /** Stops checking and leaves the table as it is (keepalived's {@code -I}). */
  public synchronized void detach() {
    stopTimers();
    if (engine != null) {
      engine.close();
    }
    publishHeld();
    try {
      lvs.detach();
    } catch (TableException e) {
      LOG.warn("{}", e.getMessage());
    }
    stopAnnouncing();
  }

  /** Verdicts held for a release the stopped timers will not run are published now. */
  private void publishHeld() {
    if (applier != null) {
      applier.publish();
    }
  }

  /** Stops the periodic work and waits for a task in progress, so shutdown's removals come last. */
  private void stopTimers() {
    if (timers != null) {
      timers.stop();
    }
  }

  @Override
  public void close() {
    stop();
  }
}

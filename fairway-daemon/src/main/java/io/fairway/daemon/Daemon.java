package io.fairway.daemon;

import io.fairway.apply.AdminApplier;
import io.fairway.apply.AdminEvent;
import io.fairway.apply.Applier;
import io.fairway.apply.LvsHousekeeping;
import io.fairway.apply.OverflowWatch;
import io.fairway.apply.QuorumRule;
import io.fairway.apply.ServerAdmin;
import io.fairway.apply.UnknownServerException;
import io.fairway.check.CheckConfigException;
import io.fairway.check.engine.CheckEngine;
import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.daemon.admin.EventHub;
import io.fairway.daemon.admin.EventKind;
import io.fairway.daemon.announce.Announcing;
import io.fairway.daemon.announce.Routes;
import io.fairway.daemon.announce.SloppyTcp;
import io.fairway.plan.Plan;
import io.fairway.plan.PlanTarget;
import io.fairway.table.ServiceEntry;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
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
  private final io.fairway.daemon.admin.CheckAttempts attempts;

  private List<ServerAdmin> restoredAdmin = List.of();

  /** Volatile: the announcing thread reads its status without this object's lock. */
  private volatile Applier applier;

  /** Where announced routes go (the kernel's tables; tests give memory). */
  private Routes.Opener announceOpener = Routes.Opener.KERNEL;

  /** Announcing by BGP (announce_table); null until {@link #start}. */
  private volatile Announcing announcing;

  /** lvs_sloppy_tcp on the kernel plane; null on the others. */
  private SloppyTcp sloppyTcp;

  /** The operators' settings in front of the applier; verdicts go through it. */
  private AdminApplier admin;

  /** The plan being run; what a failed reload goes back to. */
  private Plan plan = Plan.EMPTY;

  private ApplyingListener listener;
  private CheckEngine engine;

  /**
   * The daemon's periodic work on one thread: drift repair, the overflow watch, only while a ramp
   * runs the slow start step, and the release of verdicts held to be published together. All
   * serialise on the applier anyway.
   */
  private ScheduledExecutorService timers;

  /** overflow_to_sorry_server on a table that cannot overflow by itself; zero = not watched. */
  private Duration overflowInterval = Duration.ZERO;

  private boolean overflowFailing;

  /** Whether the slow start step is scheduled (it reschedules itself while ramps run). */
  private final java.util.concurrent.atomic.AtomicBoolean slowStartTicking =
      new java.util.concurrent.atomic.AtomicBoolean();

  private volatile int reloads;

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
    this.attempts = new io.fairway.daemon.admin.CheckAttempts(clock);
    // Any change of verdict, quorum, sorry server, admin or reload may change what to announce.
    events.listen(
        e -> {
          Announcing an = announcing;
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
    startAnnouncing(loaded);
    admin = new AdminApplier(applier, quorumRules(loaded), this::adminEvent);
    for (ServerAdmin unknown : admin.restore(restoredAdmin)) {
      LOG.warn(
          "state file: {} {} is not in the configuration, its admin state {} is dropped",
          unknown.virtualServer(),
          unknown.realServer(),
          unknown.state().wire());
    }
    listener = new ApplyingListener(admin, clock, events);
    engine = engines.get().listener(listener).alsoObserver(attempts).build();
    try {
      engine.start(loaded.specs());
    } catch (ApplyingListener.TableFailure e) {
      engine.close();
      throw (TableException) e.getCause();
    }
    // The first pass: services whose initial state can serve (no alpha) are announced now.
    announcing.poke();
    LOG.info("running {} ({} virtual servers)", file, loaded.bindings().size());
    timers =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "fairway-timers");
              t.setDaemon(true);
              return t;
            });
    Applier a = applier;
    // Verdicts that arrive together (the first round of checks finds every dead server within
    // seconds) are published together, the release on this thread.
    a.coalesceVerdicts(this::later);
    if (!driftInterval.isZero()) {
      long ms = driftInterval.toMillis();
      // With the applier in hand, not through this object's lock: stop() holds it while it
      // waits for the timers.
      Announcing an = announcing;
      timers.scheduleWithFixedDelay(
          () -> {
            repairDrift(a);
            an.poke();
          },
          ms,
          ms,
          TimeUnit.MILLISECONDS);
    }
    a.onRampStart(() -> startSlowStartTick(a));
    if (a.rampsActive()) {
      startSlowStartTick(a);
    }
    if (!overflowInterval.isZero()) {
      OverflowWatch watch = new OverflowWatch(applier);
      long us = Math.max(1, overflowInterval.toNanos() / 1000);
      timers.scheduleWithFixedDelay(() -> watchOverflow(watch), us, us, TimeUnit.MICROSECONDS);
    }
  }

  /**
   * Opens the announce table (removing the stale routes a crash left) and sets lvs_sloppy_tcp on
   * the kernel plane; nothing is announced before the first pass after the engine's initial state.
   */
  private void startAnnouncing(Loaded loaded) throws TableException {
    announcing =
        new Announcing(
            announceOpener,
            this::applierStatus,
            change -> events.publish(EventKind.ANNOUNCE, null, null, change));
    if (table instanceof io.fairway.ipvs.kernel.IpvsKernelTable) {
      sloppyTcp = new SloppyTcp(SloppyTcp.PROC);
    }
    try {
      announcing.configure(loaded.announce());
      if (sloppyTcp != null) {
        sloppyTcp.apply(loaded.announce().announcement().lvsSloppyTcp());
      }
    } catch (java.io.IOException e) {
      throw new TableException(
          TableException.Reason.OTHER,
          "announce_table "
              + loaded.announce().announcement().table().orElse(-1)
              + ": "
              + e.getMessage());
    }
  }

  private List<io.fairway.apply.VirtualServerStatus> applierStatus() {
    Applier a = applier;
    return a == null ? List.of() : a.status();
  }

  /** Runs a task on the timer thread after a delay; throws once the timers are stopped. */
  private void later(Duration delay, Runnable task) {
    timers.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Schedules the slow start step unless it is: called under the applier's lock, never blocks. */
  private void startSlowStartTick(Applier a) {
    if (slowStartTicking.compareAndSet(false, true)) {
      scheduleSlowStartTick(a);
    }
  }

  private void scheduleSlowStartTick(Applier a) {
    try {
      timers.schedule(() -> stepSlowStarts(a), 50, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException stopping) {
      slowStartTicking.set(false);
    }
  }

  /** One slow start step every 50 ms while a ramp runs; then the step stops until the next ramp. */
  private void stepSlowStarts(Applier a) {
    try {
      a.stepSlowStarts();
    } catch (TableException | RuntimeException e) {
      // The next step retries; drift repair converges what was missed.
      LOG.debug("slow start: {}", e.getMessage());
    }
    if (a.rampsActive()) {
      scheduleSlowStartTick(a);
      return;
    }
    slowStartTicking.set(false);
    // A ramp that started between the check and the reset found the step still scheduled.
    if (a.rampsActive() && slowStartTicking.compareAndSet(false, true)) {
      scheduleSlowStartTick(a);
    }
  }

  /** Whether the slow start step is scheduled now (it is only while a ramp runs). */
  boolean slowStartTicking() {
    return slowStartTicking.get();
  }

  /** One overflow reading; a failure is logged once until the table answers again. */
  private void watchOverflow(OverflowWatch watch) {
    try {
      watch.poll();
      if (overflowFailing) {
        LOG.info("overflow watch: reading the table again");
      }
      overflowFailing = false;
    } catch (TableException | RuntimeException e) {
      if (!overflowFailing) {
        LOG.warn(
            "overflow watch: cannot read the table, sorry servers stay as they are: {}",
            e.getMessage());
      }
      overflowFailing = true;
    }
  }

  /**
   * Loads the file again and applies the difference. An invalid file is refused: the running
   * configuration, its checkers and the table stay as they are.
   *
   * @return null when the reload was applied, else the one-line reason it was refused (nothing
   *     changed), or {@code partially applied; not applied: ...} when the table refused what the
   *     new servers' first verdicts asked (the rest is in place)
   */
  public String reload() {
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

  private final Object reloading = new Object();

  private String apply(Loaded loaded) {
    loaded.warnings().forEach(w -> LOG.warn("{}", w));
    List<VirtualServerSpec> specs = AlphaOverride.apply(loaded.specs(), this::knownVerdict);
    Plan before = plan;
    // The new plan's settings first, so services the applier adds start with them; every table
    // operation after this point is undone if one fails.
    if (table instanceof PlanTarget t) {
      t.apply(loaded.plan());
    }
    try {
      // Through the admin layer: operators' settings of servers that still exist are kept.
      admin.replace(loaded.bindings(), quorumRules(loaded));
    } catch (TableException | RuntimeException e) {
      if (table instanceof PlanTarget t) {
        t.apply(before);
      }
      // The old engine was never closed: it keeps checking the old plan, which keeps serving.
      return refuse("the table refused the change (" + e.getMessage() + "); rolled back");
    }
    listener.retain(loaded.bindings().keySet());
    attempts.retain(loaded.bindings().keySet());
    // What the table refuses from here on (a server's first verdict adds it) is not rolled
    // back; it is reported, never called "reloaded".
    List<String> refused = new java.util.ArrayList<>();
    try {
      lvs.reload(loaded.lvs());
    } catch (TableException e) {
      LOG.error("reload: lvs_timeouts: {}", e.getMessage());
      refused.add("lvs_timeouts: " + e.getMessage());
    }
    reloadAnnouncing(loaded, refused);
    plan = loaded.plan();
    CheckEngine previous = engine;
    previous.close();
    engine = engines.get().listener(listener).alsoObserver(attempts).build();
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
    reloads++;
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
    LOG.info(
        "reloaded {} ({} virtual servers{})",
        file,
        loaded.bindings().size(),
        changes.isEmpty() ? ", plan unchanged" : ": " + String.join("; ", changes));
    events.publish(
        EventKind.RELOAD_OK,
        null,
        null,
        "reloaded "
            + file
            + " ("
            + loaded.bindings().size()
            + " virtual servers"
            + (changes.isEmpty() ? ", plan unchanged" : ": " + String.join("; ", changes))
            + ")");
    return null;
  }

  /** A reload's announce settings: a new table, services added or removed, lvs_sloppy_tcp. */
  private void reloadAnnouncing(Loaded loaded, List<String> refused) {
    try {
      announcing.configure(loaded.announce());
    } catch (java.io.IOException e) {
      LOG.error("reload: announce_table: {}", e.getMessage());
      refused.add("announce_table: " + e.getMessage());
    }
    if (sloppyTcp != null) {
      try {
        sloppyTcp.apply(loaded.announce().announcement().lvsSloppyTcp());
      } catch (java.io.IOException e) {
        LOG.error("reload: {}", e.getMessage());
        refused.add(e.getMessage());
      }
    }
    announcing.poke();
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
    return reloads;
  }

  private Boolean knownVerdict(String vs, String rs) {
    try {
      return admin.alive(vs, rs);
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
    return applier;
  }

  /** The operators' drain / maint / ready / weight in front of the applier. */
  public synchronized AdminApplier admin() {
    return admin;
  }

  /** Whether the configuration is loaded and the table installed. */
  public synchronized boolean ready() {
    return admin != null;
  }

  private static Map<String, QuorumRule> quorumRules(Loaded loaded) {
    Map<String, QuorumRule> rules = new java.util.HashMap<>();
    for (VirtualServerSpec s : loaded.specs()) {
      rules.put(s.name(), new QuorumRule(s.quorum(), s.hysteresis()));
    }
    return rules;
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

  /** Each server's last verdict and reason. */
  /** Each real server's last check attempt. */
  public io.fairway.daemon.admin.CheckAttempts attempts() {
    return attempts;
  }

  public synchronized ApplyingListener listener() {
    return listener;
  }

  /** What {@code fairway status} prints. */
  public String status() {
    Applier a;
    ApplyingListener l;
    Plan p;
    synchronized (this) {
      a = applier;
      l = listener;
      p = plan;
    }
    List<ServiceEntry> entries;
    try {
      entries = a.readBack();
    } catch (TableException e) {
      return "fairway: cannot read the table: " + e.getMessage() + "\n";
    }
    return StatusFormat.render(entries, a.status(), l.health(), p)
        + io.fairway.daemon.announce.AnnounceStatus.text(announcing);
  }

  /** Announcing by BGP: its settings and state (null before {@link #start}). */
  public Announcing announcing() {
    return announcing;
  }

  /**
   * {@code fairway announce on|off}: withdraws or restores this node's routes now; kept across
   * reloads (not across a restart).
   *
   * @return whether the setting changed
   */
  public boolean announce(boolean on) {
    Announcing an = announcing;
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
    Announcing an = announcing;
    if (an == null || !an.withdraw()) {
      return Duration.ZERO;
    }
    return an.settings().announcement().withdrawDelay();
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
   * Removes the announced routes (with {@code -I} too: a route left behind would keep attracting
   * traffic to a node nothing checks any more) and puts lvs_sloppy_tcp back.
   */
  private void stopAnnouncing() {
    if (announcing != null) {
      announcing.close();
    }
    if (sloppyTcp != null) {
      try {
        sloppyTcp.restore();
      } catch (java.io.IOException e) {
        LOG.warn("{}", e.getMessage());
      }
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

  /**
   * Stops drift repair, the overflow watch and the slow start step, and waits for one in progress,
   * so shutdown's removals come last.
   */
  private void stopTimers() {
    if (timers == null) {
      return;
    }
    timers.shutdownNow();
    try {
      timers.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
  }
}

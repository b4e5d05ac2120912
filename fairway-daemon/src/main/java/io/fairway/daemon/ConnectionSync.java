package io.fairway.daemon;

import io.fairway.plan.Plan;
import io.fairway.table.SyncDaemon;
import io.fairway.table.SyncDaemon.Role;
import io.fairway.table.SyncDaemonControl;
import io.fairway.table.TableException;
import io.fairway.vrrp.state.State;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kernel's IPVS connection sync daemons, run as keepalived 2.2.7 runs them for {@code
 * lvs_sync_daemon} (check_daemon.c, vrrp_scheduler.c, vrrp.c, ipvswrapper.c):
 *
 * <ul>
 *   <li><b>Without a VRRP instance</b> a master and a backup daemon both run from start to exit
 *       (keepalived's checker process does this, after stopping any an earlier run left).
 *   <li><b>With an instance</b> the backup daemon starts with it; when the instance becomes master
 *       the backup daemon stops and the master one starts; when it leaves master (for backup or
 *       fault) the master one stops and the backup one starts again. A backup that goes to fault
 *       keeps its backup daemon. At exit the running one stops.
 *   <li><b>A reload</b> ({@link #reload}) that changes the daemons' settings (interface, id,
 *       maxlen, port, TTL, group: keepalived's {@code ipvs_syncd_changed}) stops the running ones
 *       and starts the new ones in the role the followed instance is in now; one that only follows
 *       another instance (or none) keeps the daemons and takes that instance's role.
 * </ul>
 *
 * <p>Fairway also stops, at start, the daemons a previous run left behind whatever the mode (a
 * {@code kill -9} leaves them running; keepalived's VRRP process would fail its start on them).
 *
 * <p>Every change is the same step, {@link #converge}: the roles wanted now (from the plan and the
 * followed instance's last state) against the ones this object started, stopping before starting as
 * keepalived's ipvs_syncd_master/backup do. State changes arrive on the VRRP event thread and
 * reloads on the reload's; the netlink requests run on a thread of their own, in order, so a slow
 * kernel does not delay adverts. Every kernel call is serialised by this object's monitor (the
 * control is one netlink socket). A failed request is logged and kept for {@link #status}, which
 * reads the kernel rather than trusting what was asked.
 */
public final class ConnectionSync implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionSync.class);

  /** How long a reload waits for its requests (behind any state change queued before it). */
  private static final long RELOAD_SECONDS = 10;

  private final SyncDaemonControl kernel;
  private final ExecutorService worker;

  /** The settings being run; a reload replaces it. */
  private Plan.Sync plan;

  /** The daemons this object started and has not stopped (what exit stops), with their settings. */
  private final Set<Role> started = EnumSet.noneOf(Role.class);

  /** The settings the started daemons run with; null until one is started. */
  private Plan.@Nullable Sync startedWith;

  /** Every instance's last state but STOP, so a reload that follows another one knows its role. */
  private final Map<String, State> states = new HashMap<>();

  private @Nullable String lastError;
  private boolean closed;

  public ConnectionSync(Plan.Sync plan, SyncDaemonControl kernel) {
    this(plan, kernel, Map.of());
  }

  /**
   * @param states the instances' states now, for daemons started after the instances (a reload that
   *     adds lvs_sync_daemon); empty at start-up, before VRRP runs
   */
  public ConnectionSync(Plan.Sync plan, SyncDaemonControl kernel, Map<String, State> states) {
    this.plan = Objects.requireNonNull(plan);
    this.kernel = Objects.requireNonNull(kernel);
    this.states.putAll(states);
    this.states.values().removeIf(s -> s == State.STOP);
    this.worker =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "fairway-syncd");
              t.setDaemon(true);
              return t;
            });
  }

  /** The settings being run. */
  public synchronized Plan.Sync plan() {
    return plan;
  }

  /**
   * Stops what an earlier run left, then starts the daemons wanted now: the backup one (and,
   * without an instance, the master one too; with an instance that is master already, the master
   * one). Call before the VRRP instances start, or with their states when they run already.
   *
   * @throws TableException naming {@code lvs_sync_daemon} and its file:line, when the kernel
   *     refuses to start a daemon (nothing is left running then)
   */
  public synchronized void start() throws TableException {
    try {
      for (SyncDaemon left : kernel.syncDaemons()) {
        LOG.info(
            "lvs_sync_daemon: stopping the {} sync daemon an earlier run left ({})",
            left.role().word(),
            left.ipvsadmLine());
        kernel.stopSyncDaemon(left.role());
      }
      for (Role r : wanted()) {
        startDaemon(r);
      }
    } catch (TableException e) {
      stopStarted();
      throw named(e);
    }
  }

  /**
   * An instance changed state (the VRRP speaker's listener). Changes of instances not followed only
   * update what a reload would find; the STOP of shutdown or of a reload is ignored ({@link #close}
   * stops the daemons, and a reload that removes the followed instance changes this plan).
   */
  public void instanceChanged(String instance, State from, State to) {
    if (to == State.STOP) {
      return;
    }
    synchronized (this) {
      if (closed) {
        return;
      }
      states.put(instance, to);
      if (plan.instance().isEmpty() || !plan.instance().get().equals(instance)) {
        return;
      }
    }
    // The state of this change, not the latest: each change is keepalived's step, in order.
    submit(() -> converge(instance, to));
  }

  /**
   * A reload's {@code lvs_sync_daemon}: other settings restart the daemons (the old ones stopped
   * first), another instance followed only changes the role; the same settings on another line
   * change nothing. Runs on the daemons' thread after the state changes queued before it, and waits
   * for it.
   *
   * @return null when the kernel did what was asked, else the one-line refusal (also in {@link
   *     #status})
   */
  public String reload(Plan.Sync next) {
    Objects.requireNonNull(next);
    CompletableFuture<String> done = new CompletableFuture<>();
    try {
      worker.execute(
          () -> {
            try {
              done.complete(applyReload(next));
            } catch (RuntimeException e) {
              done.completeExceptionally(e);
            }
          });
      return done.get(RELOAD_SECONDS, TimeUnit.SECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return "lvs_sync_daemon: stopping, the reload's change is not applied";
    } catch (java.util.concurrent.ExecutionException e) {
      return "lvs_sync_daemon: " + e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      return "lvs_sync_daemon: the kernel did not answer within " + RELOAD_SECONDS + " s";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "lvs_sync_daemon: interrupted";
    }
  }

  private synchronized @Nullable String applyReload(Plan.Sync next) {
    if (closed) {
      return null;
    }
    Plan.Sync before = plan;
    plan = next;
    if (before.sameAs(next)) {
      return null; // moved, or unchanged: the daemons stay
    }
    String error = null;
    Plan.Sync running = startedWith;
    if (!started.isEmpty()
        && !Objects.requireNonNull(running, "set when a daemon starts").sameDaemons(next)) {
      LOG.info(
          "lvs_sync_daemon: the reload changed the daemons: {} -> {}; restarting them",
          describe(running),
          describe(next));
      // keepalived's checker stops master then backup; the order does not matter to the kernel.
      for (Role r : List.of(Role.MASTER, Role.BACKUP)) {
        try {
          stopDaemon(r);
        } catch (TableException e) {
          error = fail(e);
        }
      }
    }
    String converged = converge();
    return converged != null ? converged : error;
  }

  private void submit(Runnable r) {
    try {
      worker.execute(r);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      LOG.debug("lvs_sync_daemon: closing, state change not applied");
    }
  }

  /** The roles the plan wants now: both without an instance, else the followed instance's. */
  private Set<Role> wanted() {
    return wanted(followedState());
  }

  private Set<Role> wanted(State followed) {
    if (plan.instance().isEmpty()) {
      return EnumSet.of(Role.MASTER, Role.BACKUP);
    }
    return EnumSet.of(followed == State.MASTER ? Role.MASTER : Role.BACKUP);
  }

  /** A state change, on the daemons' thread: {@code to} if the instance is (still) followed. */
  private synchronized void converge(String instance, State to) {
    converge(plan.instance().equals(Optional.of(instance)) ? wanted(to) : wanted());
  }

  private State followedState() {
    return plan.instance().map(i -> states.getOrDefault(i, State.INIT)).orElse(State.INIT);
  }

  /**
   * Makes the started daemons the wanted ones: keepalived's ipvs_syncd_master / ipvs_syncd_backup
   * (stop the role not wanted, then start the one wanted); nothing when they match already.
   *
   * @return null, or the last refusal
   */
  private @Nullable String converge() {
    return converge(wanted());
  }

  private @Nullable String converge(Set<Role> want) {
    if (closed) {
      return null;
    }
    String error = null;
    for (Role r : List.of(Role.MASTER, Role.BACKUP)) {
      if (!want.contains(r)) {
        try {
          stopDaemon(r);
        } catch (TableException e) {
          error = fail(e);
        }
      }
    }
    for (Role r : List.of(Role.MASTER, Role.BACKUP)) {
      if (want.contains(r) && !started.contains(r)) {
        try {
          startDaemon(r);
          lastError = null;
        } catch (TableException e) {
          error = fail(e);
        }
      }
    }
    return error;
  }

  private String fail(TableException e) {
    lastError = "lvs_sync_daemon: " + e.getMessage();
    LOG.warn("{} ({})", lastError, plan.where());
    return lastError;
  }

  private void startDaemon(Role role) throws TableException {
    SyncDaemon d = plan.daemon(role);
    kernel.startSyncDaemon(d);
    started.add(role);
    startedWith = plan;
    LOG.info(
        "lvs_sync_daemon: started the {} sync daemon on {} (syncid {})",
        role.word(),
        d.interfaceName(),
        d.syncId());
  }

  private void stopDaemon(Role role) throws TableException {
    if (!started.contains(role)) {
      return;
    }
    started.remove(role);
    try {
      kernel.stopSyncDaemon(role);
      LOG.info("lvs_sync_daemon: stopped the {} sync daemon", role.word());
    } catch (TableException e) {
      if (e.reason() != TableException.Reason.NO_SERVICE) {
        throw e;
      }
      // Stopped behind our back (ipvsadm --stop-daemon): what we wanted anyway.
    }
  }

  private void stopStarted() {
    for (Role r : List.copyOf(started)) {
      try {
        stopDaemon(r);
      } catch (TableException e) {
        LOG.warn("lvs_sync_daemon: {}", e.getMessage());
      }
    }
  }

  /** Stops the daemons this object started; state changes after this are ignored. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    worker.shutdown();
    try {
      // A change being applied finishes first, so what it started is stopped below; the ones
      // still queued see the flag and do nothing (everything stops anyway).
      if (!worker.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("lvs_sync_daemon: a sync daemon request did not finish within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      stopStarted();
    }
  }

  /**
   * What is asked for and why, what the kernel reports running (read now), and the last refusal if
   * the kernel refused the last change: typed, for the status text and the admin API's JSON.
   */
  public synchronized SyncStatus snapshot() {
    List<SyncDaemon> running = List.of();
    Optional<String> kernelError = Optional.empty();
    try {
      running = List.copyOf(kernel.syncDaemons());
    } catch (TableException e) {
      kernelError =
          Optional.of(Objects.requireNonNull(e.getMessage(), "a TableException says why"));
    }
    return new SyncStatus(
        plan,
        true,
        plan.instance().map(i -> followedState()),
        List.copyOf(wanted()),
        running,
        kernelError,
        Optional.ofNullable(lastError));
  }

  /**
   * The status lines: what is asked for (and why), then what the kernel reports running, read now,
   * and the last refusal if the kernel refused the last change.
   */
  public String status() {
    return snapshot().text();
  }

  private static String describe(Plan.Sync p) {
    return p.daemon(Role.MASTER).ipvsadmLine().replaceFirst("^master sync daemon ", "");
  }

  private TableException named(TableException e) {
    TableException n =
        new TableException(
            e.reason(), e.errno(), plan.where() + ": lvs_sync_daemon: " + e.getMessage());
    n.initCause(e);
    return n;
  }
}

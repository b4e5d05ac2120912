package io.fairway.daemon;

import io.fairway.plan.Plan;
import io.fairway.table.SyncDaemon;
import io.fairway.table.SyncDaemon.Role;
import io.fairway.table.SyncDaemonControl;
import io.fairway.table.TableException;
import io.fairway.vrrp.state.State;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
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
 * </ul>
 *
 * <p>Fairway also stops, at start, the daemons a previous run left behind whatever the mode (a
 * {@code kill -9} leaves them running; keepalived's VRRP process would fail its start on them).
 *
 * <p>State changes arrive on the VRRP event thread; the netlink requests run on a thread of their
 * own, in order, so a slow kernel does not delay adverts. Every kernel call is serialised by this
 * object's monitor (the control is one netlink socket). A failed request is logged and kept for
 * {@link #status}, which reads the kernel rather than trusting what was asked.
 */
public final class ConnectionSync implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionSync.class);

  private final Plan.Sync plan;
  private final SyncDaemonControl kernel;
  private final ExecutorService worker;

  /** The daemons this object started and has not stopped (what exit stops). */
  private final Set<Role> started = EnumSet.noneOf(Role.class);

  /** The followed instance's last state; INIT until it reports one. */
  private State instanceState = State.INIT;

  private String lastError;
  private boolean closed;

  public ConnectionSync(Plan.Sync plan, SyncDaemonControl kernel) {
    this.plan = Objects.requireNonNull(plan);
    this.kernel = Objects.requireNonNull(kernel);
    this.worker =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "fairway-syncd");
              t.setDaemon(true);
              return t;
            });
  }

  /** The plan's settings. */
  public Plan.Sync plan() {
    return plan;
  }

  /**
   * Stops what an earlier run left, then starts the backup daemon (and, without an instance, the
   * master one too). Call before the VRRP instances start.
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
      if (plan.instance().isEmpty()) {
        startDaemon(Role.MASTER);
      }
      startDaemon(Role.BACKUP);
    } catch (TableException e) {
      stopStarted();
      throw named(e);
    }
  }

  /**
   * The followed instance changed state (the VRRP speaker's listener). Changes of other instances,
   * and the STOP of shutdown, are ignored: {@link #close} stops the daemons.
   */
  public void instanceChanged(String instance, State from, State to) {
    if (plan.instance().isEmpty() || !plan.instance().get().equals(instance) || to == State.STOP) {
      return;
    }
    synchronized (this) {
      if (closed) {
        return;
      }
      instanceState = to;
    }
    if (to == State.MASTER) {
      submit(() -> become(Role.MASTER));
    } else if (from == State.MASTER) {
      submit(() -> become(Role.BACKUP));
    }
  }

  private void submit(Runnable r) {
    try {
      worker.execute(r);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      LOG.debug("lvs_sync_daemon: closing, state change not applied");
    }
  }

  /** keepalived's ipvs_syncd_master / ipvs_syncd_backup: stop the other role, start this one. */
  synchronized void become(Role role) {
    if (closed) {
      return;
    }
    Role other = role == Role.MASTER ? Role.BACKUP : Role.MASTER;
    try {
      stopDaemon(other);
    } catch (TableException e) {
      fail(e);
    }
    if (started.contains(role)) {
      return;
    }
    try {
      startDaemon(role);
      lastError = null;
    } catch (TableException e) {
      fail(e);
    }
  }

  private void fail(TableException e) {
    lastError = "lvs_sync_daemon: " + e.getMessage();
    LOG.warn("{} ({})", lastError, plan.where());
  }

  private void startDaemon(Role role) throws TableException {
    SyncDaemon d = plan.daemon(role);
    kernel.startSyncDaemon(d);
    started.add(role);
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
   * The status lines: what is asked for (and why), then what the kernel reports running, read now,
   * and the last refusal if the kernel refused the last change.
   */
  public synchronized String status() {
    StringBuilder b =
        new StringBuilder("IPVS sync daemon: ")
            .append(plan.interfaceName())
            .append(" syncid ")
            .append(plan.syncId());
    if (plan.instance().isPresent()) {
      Role want = instanceState == State.MASTER ? Role.MASTER : Role.BACKUP;
      b.append(", follows ")
          .append(plan.instance().get())
          .append(" (")
          .append(instanceState)
          .append("): wants ")
          .append(want.word());
    } else {
      b.append(", no VRRP instance: wants master and backup");
    }
    b.append('\n');
    try {
      List<SyncDaemon> running = new ArrayList<>(kernel.syncDaemons());
      if (running.isEmpty()) {
        b.append("  kernel: no sync daemon running\n");
      }
      for (SyncDaemon d : running) {
        b.append("  kernel: ").append(d.ipvsadmLine()).append('\n');
      }
    } catch (TableException e) {
      b.append("  kernel: cannot read the sync daemons: ").append(e.getMessage()).append('\n');
    }
    if (lastError != null) {
      b.append("  last change refused: ").append(lastError).append('\n');
    }
    return b.toString();
  }

  private TableException named(TableException e) {
    TableException n =
        new TableException(
            e.reason(), e.errno(), plan.where() + ": lvs_sync_daemon: " + e.getMessage());
    n.initCause(e);
    return n;
  }
}

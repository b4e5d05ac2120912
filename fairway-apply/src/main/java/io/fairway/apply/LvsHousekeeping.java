package io.fairway.apply;

import io.fairway.table.Table;
import io.fairway.table.TableException;
import io.fairway.table.TimeoutControl;
import io.fairway.table.Timeouts;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What keepalived's checker process does to the table around the virtual servers: {@code
 * lvs_timeouts}, {@code lvs_flush} and {@code lvs_flush_on_stop}, with keepalived 2.2.7's order and
 * rules (check_daemon.c start_check and checker_terminate_phase1/2, ipwrapper.c clear_services,
 * libipvs.c ipvs_set_timeout).
 *
 * <ul>
 *   <li><b>Timeouts</b> are global to the kernel, not Fairway's, so the ones found before the first
 *       change are read and kept. Each time they are set, the given ones are sent and the others go
 *       back to those originals: a timeout dropped from the file by a reload is restored, not left
 *       at its last value. A reload without {@code lvs_timeouts} restores all three, and so does
 *       shutdown (even with {@code -I}, as keepalived's ipvs_stop does). They are set at startup
 *       before anything else, and again on every reload.
 *   <li><b>{@code lvs_flush}</b> empties the whole table at startup (not on reload), after the
 *       timeouts and before the first service goes in: services left over from a previous run, or
 *       put in by hand, go.
 *   <li><b>Shutdown</b> without {@code lvs_flush_on_stop} deletes each sorry server, real server
 *       and service Fairway installed, one by one ({@link Applier#removeAll()}); with {@code VS} it
 *       deletes the services only, the kernel taking their destinations along; plain {@code
 *       lvs_flush_on_stop} flushes the whole table, other services included.
 * </ul>
 *
 * <p>On a table without timeouts or a kernel behind it (the userspace proxy) the kernel-only
 * keywords are logged as not applying and skipped; shutdown removal works the same on both.
 *
 * <p>A refusal names the keyword: {@code lvs_timeouts: IPVS set timeouts: permission denied: ...}.
 */
public final class LvsHousekeeping {
  private static final Logger LOG = LoggerFactory.getLogger(LvsHousekeeping.class);

  private final Table table;
  private final @Nullable TimeoutControl kernel;
  private LvsGlobals globals = LvsGlobals.NONE;

  /** The timeouts found before Fairway first changed them; null until then. */
  private @Nullable Timeouts original;

  /** Set by {@link #stop}: a second stop (close after stop) must not flush the table again. */
  private boolean stopped;

  /**
   * @param table the table the daemon runs; when it is also a {@link TimeoutControl} (the kernel's
   *     IPVS) the timeouts and the startup flush apply to it
   */
  public LvsHousekeeping(Table table) {
    this.table = Objects.requireNonNull(table, "table");
    this.kernel = table instanceof TimeoutControl t ? t : null;
  }

  /**
   * At startup, before the first virtual server is installed: timeouts, then {@code lvs_flush}.
   *
   * @throws TableException naming the keyword whose change the kernel refused
   */
  public synchronized void start(LvsGlobals g) throws TableException {
    globals = Objects.requireNonNull(g);
    stopped = false;
    if (kernel == null) {
      if (g.flush()) {
        LOG.info("lvs_flush does not apply to the userspace data plane: it starts empty");
      }
      if (!g.timeouts().isEmpty()) {
        LOG.info(
            "lvs_timeouts: the userspace data plane has no IPVS timeouts; tcp becomes its"
                + " idle timeout and udp its UDP flow timeout when given; tcpfin does not apply");
      }
      return;
    }
    if (!g.timeouts().isEmpty()) {
      applyTimeouts(g.timeouts());
    }
    if (g.flush()) {
      LOG.info("lvs_flush: flushing the whole IPVS table");
      try {
        table.flush();
      } catch (TableException e) {
        throw named("lvs_flush", e);
      }
    }
  }

  /**
   * On reload: the timeouts are set again (given ones, originals for the rest), or restored when
   * the keyword is gone. {@code lvs_flush} does nothing on reload, as in keepalived.
   *
   * @throws TableException naming the keyword; the reload itself goes on
   */
  public synchronized void reload(LvsGlobals g) throws TableException {
    globals = Objects.requireNonNull(g);
    if (kernel == null) {
      // The userspace data plane takes tcp and udp from the plan it is handed (and logs them).
      return;
    }
    if (!g.timeouts().isEmpty()) {
      applyTimeouts(g.timeouts());
    } else {
      restoreTimeouts();
    }
  }

  /**
   * At shutdown: removes what {@code lvs_flush_on_stop} says, then puts the timeouts back. Both are
   * attempted; the first failure is rethrown.
   */
  public synchronized void stop(@Nullable Applier applier) throws TableException {
    if (stopped) {
      return;
    }
    stopped = true;
    TableException failure = null;
    try {
      if (applier != null) {
        remove(applier);
      }
    } catch (TableException e) {
      failure = e;
    }
    try {
      restoreTimeouts();
    } catch (TableException e) {
      failure = failure == null ? e : failure;
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Leaves the table as it is ({@code -I}) but still puts the timeouts back, as keepalived does.
   */
  public synchronized void detach() throws TableException {
    restoreTimeouts();
  }

  private void remove(Applier applier) throws TableException {
    switch (globals.onStop()) {
      case NONE -> {
        applier.removeAll();
        LOG.info("removed every service Fairway installed");
      }
      case VS -> {
        try {
          applier.removeServices();
        } catch (TableException e) {
          throw named("lvs_flush_on_stop VS", e);
        }
        LOG.info("lvs_flush_on_stop VS: removed the configuration's services");
      }
      case FULL -> {
        try {
          if (applier.flushTable()) {
            LOG.info("lvs_flush_on_stop: flushed the whole table");
          }
        } catch (TableException e) {
          throw named("lvs_flush_on_stop", e);
        }
      }
    }
  }

  /** The given timeouts, the originals for the others (libipvs.c ipvs_set_timeout). */
  private void applyTimeouts(Timeouts given) throws TableException {
    try {
      // Only a kernel table has timeouts: the caller asks for them only then.
      TimeoutControl kernel = Objects.requireNonNull(this.kernel, "kernel");
      Timeouts was = original;
      if (was == null) {
        was = kernel.timeouts();
        original = was;
      }
      Timeouts target = given.over(was);
      kernel.setTimeouts(target);
      LOG.info(
          "lvs_timeouts: tcp {} tcpfin {} udp {}", target.tcp(), target.tcpFin(), target.udp());
    } catch (TableException e) {
      throw named("lvs_timeouts", e);
    }
  }

  private void restoreTimeouts() throws TableException {
    if (kernel == null || original == null) {
      return; // never changed them
    }
    try {
      kernel.setTimeouts(original);
      LOG.info(
          "lvs_timeouts: restored tcp {} tcpfin {} udp {}",
          original.tcp(),
          original.tcpFin(),
          original.udp());
    } catch (TableException e) {
      throw named("lvs_timeouts (restoring the original timeouts)", e);
    }
  }

  private static TableException named(String keyword, TableException e) {
    TableException n = new TableException(e.reason(), e.errno(), keyword + ": " + e.getMessage());
    n.initCause(e);
    return n;
  }

  /** The keywords in force (for tests and status). */
  public synchronized LvsGlobals globals() {
    return globals;
  }
}

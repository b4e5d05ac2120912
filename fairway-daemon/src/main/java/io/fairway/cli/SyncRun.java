package io.fairway.cli;

import io.fairway.daemon.ConnectionSync;
import io.fairway.daemon.SyncStatus;
import io.fairway.ipvs.kernel.IpvsKernelTable;
import io.fairway.plan.Plan;
import io.fairway.table.TableException;
import io.fairway.vrrp.state.State;
import java.io.IOException;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection sync side of {@code fairway run}: {@code lvs_sync_daemon} on the kernel plane,
 * through a netlink socket of its own (the VRRP thread's state changes must not wait for the
 * table's), following the VRRP instance it names ({@link ConnectionSync}). A reload adds, changes
 * or removes the daemons ({@link #prepare}). On the userspace plane it only says that it does not
 * apply.
 */
final class SyncRun implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SyncRun.class);

  private volatile Optional<Plan.Sync> plan;
  private final boolean userspace;
  private @Nullable IpvsKernelTable kernel;
  private volatile @Nullable ConnectionSync sync;

  /** Every VRRP instance's last state but STOP: what daemons a reload adds start from. */
  private final Map<String, State> states = new HashMap<>();

  private SyncRun(Optional<Plan.Sync> plan, boolean userspace) {
    this.plan = plan;
    this.userspace = userspace;
  }

  static SyncRun of(Plan plan, boolean userspace) {
    return new SyncRun(plan.sync(), userspace);
  }

  /**
   * Registers with the VRRP side, so the daemons follow the instance (before it starts), also the
   * speakers and the daemons a reload starts.
   */
  void follow(VrrpRun vrrp) {
    if (userspace) {
      return;
    }
    vrrp.onStateChange(
        (instance, from, to) -> {
          ConnectionSync s;
          synchronized (this) {
            if (to == State.STOP) {
              states.remove(instance);
            } else {
              states.put(instance, to);
            }
            s = sync;
          }
          if (s != null) {
            s.instanceChanged(instance, from, to);
          }
        });
  }

  /**
   * Checks the interface and starts the daemons; before the VRRP instances start.
   *
   * @throws IOException one line, naming lvs_sync_daemon's file:line
   */
  synchronized void start() throws IOException {
    if (plan.isEmpty()) {
      return;
    }
    Plan.Sync p = plan.get();
    if (userspace) {
      warnUserspace(p);
      return;
    }
    checkInterface(p);
    try {
      kernel = IpvsKernelTable.open();
      ConnectionSync s = new ConnectionSync(p, kernel);
      s.start();
      sync = s;
    } catch (TableException e) {
      close();
      throw new IOException(named(p, e), e);
    }
  }

  private static void warnUserspace(Plan.Sync p) {
    LOG.warn(
        "{}: lvs_sync_daemon does not apply to the"
            + " userspace data plane (--userspace): its connections live in the proxy and are not"
            + " synchronised; no sync daemon started",
        p.where());
  }

  private static void checkInterface(Plan.Sync p) throws IOException {
    try {
      if (NetworkInterface.getByName(p.interfaceName()) == null) {
        throw new IOException(
            p.where() + ": lvs_sync_daemon: interface " + p.interfaceName() + " does not exist");
      }
    } catch (SocketException e) {
      throw new IOException(
          p.where() + ": lvs_sync_daemon: cannot read the interfaces: " + e.getMessage(), e);
    }
  }

  private static String named(Plan.Sync p, TableException e) {
    String m = Objects.requireNonNull(e.getMessage(), "a TableException says why");
    return m.startsWith(p.where()) ? m : p.where() + ": lvs_sync_daemon: " + m;
  }

  /** The reload's part, checked against the running system; applied after the rest. */
  interface Step {
    /**
     * Applies the step: null when applied, else what the kernel refused (one line; the rest of the
     * reload stays applied).
     */
    @Nullable String apply();

    void abandon();
  }

  /**
   * Checks a reload's {@code lvs_sync_daemon} against the running system before anything changes:
   * the interface exists, and IPVS opens when the reload adds the daemons. Applying it starts,
   * restarts ({@link ConnectionSync#reload}) or stops them.
   *
   * @throws IOException one line naming the keyword's file:line; nothing changed
   */
  synchronized Step prepare(Optional<Plan.Sync> next) throws IOException {
    Optional<Plan.Sync> before = plan;
    if (userspace) {
      return step(
          () -> {
            plan = next;
            // Said once per change, as at start: the running file had it or not.
            if (next.isPresent() && (before.isEmpty() || !before.get().sameAs(next.get()))) {
              warnUserspace(next.get());
            }
            return null;
          },
          () -> {});
    }
    if (next.isEmpty()) {
      return step(
          () -> {
            plan = next;
            ConnectionSync s = sync;
            if (s != null) {
              LOG.info("lvs_sync_daemon removed by the reload: stopping the sync daemons");
              closeDaemons();
            }
            return null;
          },
          () -> {});
    }
    Plan.Sync p = next.get();
    checkInterface(p);
    boolean opened = false;
    if (kernel == null) {
      try {
        kernel = IpvsKernelTable.open();
        opened = true;
      } catch (TableException e) {
        throw new IOException(named(p, e), e);
      }
    }
    boolean ours = opened;
    return step(
        () -> {
          plan = next;
          ConnectionSync running = sync;
          if (running != null) {
            return running.reload(p);
          }
          return startByReload(p);
        },
        () -> {
          if (ours) {
            closeKernel();
          }
        });
  }

  /** A reload added lvs_sync_daemon: the daemons start in the followed instance's role now. */
  private @Nullable String startByReload(Plan.Sync p) {
    Map<String, State> now;
    synchronized (this) {
      now = Map.copyOf(states);
    }
    ConnectionSync s =
        new ConnectionSync(p, Objects.requireNonNull(kernel, "prepare opened it"), now);
    try {
      s.start();
    } catch (TableException e) {
      s.close();
      closeKernel();
      String why = named(p, e);
      LOG.warn("reload: {}", why);
      return why;
    }
    LOG.info("lvs_sync_daemon added by the reload: sync daemons started");
    synchronized (this) {
      sync = s;
      // A state change between the copy and now went nowhere: replayed (converging twice is
      // harmless).
      p.instance()
          .map(states::get)
          .ifPresent(st -> s.instanceChanged(p.instance().get(), State.INIT, st));
    }
    return null;
  }

  private static Step step(java.util.function.Supplier<@Nullable String> apply, Runnable abandon) {
    return new Step() {
      @Override
      public @Nullable String apply() {
        return apply.get();
      }

      @Override
      public void abandon() {
        abandon.run();
      }
    };
  }

  /** Status lines, or "" when there is no sync daemon. */
  String status() {
    return snapshot().map(s -> "\n" + s.text()).orElse("");
  }

  /** The daemons now (read from the kernel), or empty without lvs_sync_daemon. */
  Optional<SyncStatus> snapshot() {
    ConnectionSync s = sync;
    if (s != null) {
      return Optional.of(s.snapshot());
    }
    Optional<Plan.Sync> p = plan;
    if (p.isPresent() && userspace) {
      return Optional.of(SyncStatus.inactive(p.get()));
    }
    return Optional.empty();
  }

  private void closeDaemons() {
    ConnectionSync s;
    synchronized (this) {
      s = sync;
      sync = null;
    }
    if (s != null) {
      // Outside this lock: the VRRP thread's listener takes it while close waits for the kernel.
      s.close();
    }
    closeKernel();
  }

  private synchronized void closeKernel() {
    if (kernel != null) {
      kernel.close();
      kernel = null;
    }
  }

  /** Stops the daemons; before the VRRP masters hand over, as keepalived does. */
  @Override
  public void close() {
    closeDaemons();
  }
}

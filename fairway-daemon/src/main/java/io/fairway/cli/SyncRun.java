package io.fairway.cli;

import io.fairway.daemon.ConnectionSync;
import io.fairway.ipvs.kernel.IpvsKernelTable;
import io.fairway.plan.Plan;
import io.fairway.table.TableException;
import java.io.IOException;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * The connection sync side of {@code fairway run}: {@code lvs_sync_daemon} on the kernel plane,
 * through a netlink socket of its own (the VRRP thread's state changes must not wait for the
 * table's), following the VRRP instance it names ({@link ConnectionSync}). On the userspace plane
 * it only says that it does not apply.
 */
final class SyncRun implements AutoCloseable {
  private final Optional<Plan.Sync> plan;
  private final boolean userspace;
  private IpvsKernelTable kernel;
  private volatile ConnectionSync sync;

  private SyncRun(Optional<Plan.Sync> plan, boolean userspace) {
    this.plan = plan;
    this.userspace = userspace;
  }

  static SyncRun of(Plan plan, boolean userspace) {
    return new SyncRun(plan.sync(), userspace);
  }

  /** Registers with the VRRP side, so the daemons follow the instance (before it starts). */
  void follow(VrrpRun vrrp) {
    if (plan.isPresent() && plan.get().instance().isPresent() && !userspace) {
      vrrp.onStateChange(
          (instance, from, to) -> {
            ConnectionSync s = sync;
            if (s != null) {
              s.instanceChanged(instance, from, to);
            }
          });
    }
  }

  /**
   * Checks the interface and starts the daemons; before the VRRP instances start.
   *
   * @throws IOException one line, naming lvs_sync_daemon's file:line
   */
  void start() throws IOException {
    if (plan.isEmpty()) {
      return;
    }
    Plan.Sync p = plan.get();
    if (userspace) {
      LoggerFactory.getLogger(SyncRun.class)
          .warn(
              "{}: lvs_sync_daemon does not apply to the"
                  + " userspace data plane (--userspace): its connections live in the proxy and are not"
                  + " synchronised; no sync daemon started",
              p.where());
      return;
    }
    try {
      if (NetworkInterface.getByName(p.interfaceName()) == null) {
        throw new IOException(
            p.where() + ": lvs_sync_daemon: interface " + p.interfaceName() + " does not exist");
      }
    } catch (SocketException e) {
      throw new IOException(
          p.where() + ": lvs_sync_daemon: cannot read the interfaces: " + e.getMessage(), e);
    }
    try {
      kernel = IpvsKernelTable.open();
      ConnectionSync s = new ConnectionSync(p, kernel);
      s.start();
      sync = s;
    } catch (TableException e) {
      close();
      throw new IOException(
          e.getMessage().startsWith(p.where())
              ? e.getMessage()
              : p.where() + ": lvs_sync_daemon: " + e.getMessage(),
          e);
    }
  }

  /** Status lines, or "" when there is no sync daemon. */
  String status() {
    ConnectionSync s = sync;
    if (s != null) {
      return "\n" + s.status();
    }
    if (plan.isPresent() && userspace) {
      return "\nIPVS sync daemon: not started (the userspace data plane has no IPVS connections)\n";
    }
    return "";
  }

  /** Stops the daemons; before the VRRP masters hand over, as keepalived does. */
  @Override
  public void close() {
    ConnectionSync s = sync;
    sync = null;
    if (s != null) {
      s.close();
    }
    if (kernel != null) {
      kernel.close();
      kernel = null;
    }
  }
}

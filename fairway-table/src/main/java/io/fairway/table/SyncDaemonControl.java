package io.fairway.table;

import java.util.List;

/**
 * A forwarder with the kernel's connection sync daemons ({@code ipvsadm --start-daemon}, {@code
 * --stop-daemon}, {@code -L --daemon}): the kernel's IPVS. keepalived's {@code lvs_sync_daemon}
 * needs it. The userspace proxy keeps its connections in the JVM and has nothing to synchronise, so
 * it does not implement this.
 */
public interface SyncDaemonControl {

  /** The daemons running now, master first ({@code IPVS_CMD_GET_DAEMON}). */
  List<SyncDaemon> syncDaemons() throws TableException;

  /**
   * Starts a daemon ({@code IPVS_CMD_NEW_DAEMON}).
   *
   * @throws TableException {@code EXISTS} when one of that role runs already, {@code NOT_FOUND} for
   *     an interface the kernel does not have, {@code INVALID} while a service has destinations of
   *     another address family (the sync protocol cannot carry them)
   */
  void startSyncDaemon(SyncDaemon daemon) throws TableException;

  /**
   * Stops the daemon of a role ({@code IPVS_CMD_DEL_DAEMON}).
   *
   * @throws TableException {@code NO_SERVICE} (ESRCH) when none of that role runs
   */
  void stopSyncDaemon(SyncDaemon.Role role) throws TableException;
}

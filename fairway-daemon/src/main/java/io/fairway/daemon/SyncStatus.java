package io.fairway.daemon;

import io.fairway.plan.Plan;
import io.fairway.table.SyncDaemon;
import io.fairway.table.SyncDaemon.Role;
import io.fairway.vrrp.state.State;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The connection sync daemons at one moment ({@code lvs_sync_daemon}): what the configuration asks,
 * what is wanted now and why, and what the kernel reports running, read back rather than
 * remembered. {@code fairway status} prints {@link #text}; the admin API renders the record.
 *
 * @param plan the settings being run
 * @param active false on the userspace data plane, where no daemon is started (its connections live
 *     in the proxy)
 * @param followedState the followed instance's last state (INIT before it reported one); empty
 *     without an instance
 * @param wants the roles wanted now, master first; empty when not active
 * @param kernel the daemons the kernel runs, master first ({@code IPVS_CMD_GET_DAEMON})
 * @param kernelError why the kernel could not be read, if it could not
 * @param lastError the kernel's refusal of the last change, until a later change succeeds
 */
public record SyncStatus(
    Plan.Sync plan,
    boolean active,
    Optional<State> followedState,
    List<Role> wants,
    List<SyncDaemon> kernel,
    Optional<String> kernelError,
    Optional<String> lastError) {
  public SyncStatus {
    Objects.requireNonNull(plan);
    Objects.requireNonNull(followedState);
    wants = List.copyOf(wants);
    kernel = List.copyOf(kernel);
    Objects.requireNonNull(kernelError);
    Objects.requireNonNull(lastError);
  }

  /** The userspace data plane: configured, nothing started. */
  public static SyncStatus inactive(Plan.Sync plan) {
    return new SyncStatus(
        plan, false, Optional.empty(), List.of(), List.of(), Optional.empty(), Optional.empty());
  }

  /** The lines {@code fairway status} prints. */
  public String text() {
    if (!active) {
      return "IPVS sync daemon: not started (the userspace data plane has no IPVS connections)\n";
    }
    StringBuilder b =
        new StringBuilder("IPVS sync daemon: ")
            .append(plan.interfaceName())
            .append(" syncid ")
            .append(plan.syncId());
    if (plan.instance().isPresent()) {
      b.append(", follows ")
          .append(plan.instance().get())
          .append(" (")
          .append(followedState.orElse(State.INIT))
          .append("): wants ")
          .append(String.join(" and ", wants.stream().map(Role::word).toList()));
    } else {
      b.append(", no VRRP instance: wants master and backup");
    }
    b.append('\n');
    if (kernelError.isPresent()) {
      b.append("  kernel: cannot read the sync daemons: ").append(kernelError.get()).append('\n');
    } else if (kernel.isEmpty()) {
      b.append("  kernel: no sync daemon running\n");
    }
    for (SyncDaemon d : kernel) {
      b.append("  kernel: ").append(d.ipvsadmLine()).append('\n');
    }
    lastError.ifPresent(e -> b.append("  last change refused: ").append(e).append('\n'));
    return b.toString();
  }
}

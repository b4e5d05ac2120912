package io.fairway.vrrp.view;

import io.fairway.vrrp.state.State;
import java.net.InetAddress;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One vrrp_instance as it runs.
 *
 * @param name the instance name
 * @param interfaceName its interface
 * @param virtualRouterId its VRID
 * @param version 2 or 3
 * @param state its state now
 * @param priority the effective priority (base plus tracking weights)
 * @param basePriority the configured priority
 * @param master the router it follows (itself when master); empty before it heard one
 * @param masterPriority the priority that master advertises
 * @param since when it entered {@code state}
 * @param virtualAddresses the addresses it holds as master (advertised, then excluded ones)
 * @param syncGroup the vrrp_sync_group it belongs to
 * @param advertsSent adverts this instance sent (priority 0 ones included)
 * @param advertsReceived adverts for this instance that passed every check
 * @param transitions state changes since it started, by the state entered
 */
public record InstanceStatus(
    String name,
    String interfaceName,
    int virtualRouterId,
    int version,
    State state,
    int priority,
    int basePriority,
    Optional<InetAddress> master,
    int masterPriority,
    Instant since,
    List<InetAddress> virtualAddresses,
    Optional<String> syncGroup,
    long advertsSent,
    long advertsReceived,
    Map<State, Long> transitions) {
  public InstanceStatus {
    virtualAddresses = List.copyOf(virtualAddresses);
    transitions = Map.copyOf(transitions);
  }

  /** Every state change, whatever the state entered. */
  public long transitionCount() {
    return transitions.values().stream().mapToLong(Long::longValue).sum();
  }
}

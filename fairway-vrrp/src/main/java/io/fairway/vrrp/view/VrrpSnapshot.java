package io.fairway.vrrp.view;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every instance and sync group at one moment, with the speaker's counters.
 *
 * @param instances in configuration order
 * @param groups in configuration order
 * @param packetsReceived every packet the sockets returned, before any check
 * @param errors drops and failures by kind (every kind present, zero included)
 */
public record VrrpSnapshot(
    List<InstanceStatus> instances,
    List<GroupStatus> groups,
    long packetsReceived,
    Map<DropKind, Long> errors) {
  public VrrpSnapshot {
    instances = List.copyOf(instances);
    groups = List.copyOf(groups);
    EnumMap<DropKind, Long> all = new EnumMap<>(DropKind.class);
    for (DropKind k : DropKind.values()) {
      all.put(k, errors.getOrDefault(k, 0L));
    }
    errors = java.util.Collections.unmodifiableMap(all);
  }

  /** Nothing runs. */
  public static VrrpSnapshot empty() {
    return new VrrpSnapshot(List.of(), List.of(), 0, Map.of());
  }

  public Optional<InstanceStatus> instance(String name) {
    return instances.stream().filter(i -> i.name().equals(name)).findFirst();
  }
}

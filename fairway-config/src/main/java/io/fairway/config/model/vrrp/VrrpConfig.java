package io.fairway.config.model.vrrp;

import java.util.List;
import java.util.Optional;

/**
 * Every VRRP block of a configuration file.
 *
 * @param globals the VRRP keywords of {@code global_defs}
 * @param instances {@code vrrp_instance} blocks, in file order
 * @param syncGroups {@code vrrp_sync_group} blocks, in file order
 * @param scripts {@code vrrp_script} blocks, in file order
 * @param syncDaemon the IPVS connection sync daemon ({@code lvs_sync_daemon} in global_defs or
 *     {@code lvs_sync_daemon_interface} in an instance), if any
 */
public record VrrpConfig(
    VrrpGlobals globals,
    List<VrrpInstance> instances,
    List<SyncGroup> syncGroups,
    List<VrrpScript> scripts,
    Optional<LvsSyncDaemon> syncDaemon) {
  public VrrpConfig {
    instances = List.copyOf(instances);
    syncGroups = List.copyOf(syncGroups);
    scripts = List.copyOf(scripts);
    java.util.Objects.requireNonNull(syncDaemon, "syncDaemon");
  }

  /** VRRP without a connection sync daemon. */
  public VrrpConfig(
      VrrpGlobals globals,
      List<VrrpInstance> instances,
      List<SyncGroup> syncGroups,
      List<VrrpScript> scripts) {
    this(globals, instances, syncGroups, scripts, Optional.empty());
  }

  /** A file without VRRP. */
  public static VrrpConfig empty() {
    return new VrrpConfig(VrrpGlobals.defaults(), List.of(), List.of(), List.of());
  }

  /** True when the file has at least one vrrp_instance. */
  public boolean isPresent() {
    return !instances.isEmpty();
  }

  public Optional<VrrpInstance> instance(String name) {
    return instances.stream().filter(i -> i.name().equals(name)).findFirst();
  }

  public Optional<VrrpScript> script(String name) {
    return scripts.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** The sync group an instance belongs to, if any. */
  public Optional<SyncGroup> groupOf(String instance) {
    return syncGroups.stream().filter(g -> g.members().contains(instance)).findFirst();
  }
}

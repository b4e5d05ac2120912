package io.fairway.config.model;

import java.util.List;
import java.util.Optional;

/**
 * A loaded keepalived.conf: everything Fairway acts on, immutable and comparable. Two configs are
 * equal when they would configure the same services, whatever the files' layout, comments, macros
 * or includes, so a reload can compare old and new and do nothing when nothing changed.
 *
 * @param globalDefs the global_defs that matter to the checker side
 * @param groups virtual_server_group blocks, in file order
 * @param virtualServers virtual_server blocks, in file order
 * @param trackFiles top-level track_file blocks (FILE_CHECK refers to them by name)
 * @param ssl the SSL block for SSL_GET checkers, if any
 * @param vrrp the VRRP blocks ({@code vrrp_instance}, {@code vrrp_sync_group}, {@code vrrp_script}
 *     and the VRRP keywords of global_defs)
 * @param shardParams top-level {@code shard_param} blocks (a Fairway extension), in file order
 */
public record Config(
    GlobalDefs globalDefs,
    List<VirtualServerGroup> groups,
    List<VirtualServer> virtualServers,
    List<TrackFile> trackFiles,
    Optional<SslContext> ssl,
    io.fairway.config.model.vrrp.VrrpConfig vrrp,
    List<ShardParam> shardParams) {
  public Config {
    shardParams = shardParams == null ? List.of() : List.copyOf(shardParams);
    groups = List.copyOf(groups);
    virtualServers = List.copyOf(virtualServers);
    trackFiles = List.copyOf(trackFiles);
  }

  /** A configuration without shard_param blocks. */
  public Config(
      GlobalDefs globalDefs,
      List<VirtualServerGroup> groups,
      List<VirtualServer> virtualServers,
      List<TrackFile> trackFiles,
      Optional<SslContext> ssl,
      io.fairway.config.model.vrrp.VrrpConfig vrrp) {
    this(globalDefs, groups, virtualServers, trackFiles, ssl, vrrp, List.of());
  }

  /** The shard_param block with this name, if any. */
  public Optional<ShardParam> shardParam(String name) {
    return shardParams.stream().filter(p -> p.name().equals(name)).findFirst();
  }

  /** A configuration without VRRP. */
  public Config(
      GlobalDefs globalDefs,
      List<VirtualServerGroup> groups,
      List<VirtualServer> virtualServers,
      List<TrackFile> trackFiles,
      Optional<SslContext> ssl) {
    this(
        globalDefs,
        groups,
        virtualServers,
        trackFiles,
        ssl,
        io.fairway.config.model.vrrp.VrrpConfig.empty());
  }

  /** The virtual server with this identity, if any. */
  public Optional<VirtualServer> virtualServer(VirtualServerId id) {
    return virtualServers.stream().filter(vs -> vs.id().equals(id)).findFirst();
  }

  /** The virtual server with this name, if any. */
  public Optional<VirtualServer> virtualServer(String name) {
    return virtualServers.stream().filter(vs -> vs.name().equals(name)).findFirst();
  }

  /** The group with this name, if any. */
  public Optional<VirtualServerGroup> group(String name) {
    return groups.stream().filter(g -> g.name().equals(name)).findFirst();
  }

  /** The track_file with this name, if any. */
  public Optional<TrackFile> trackFile(String name) {
    return trackFiles.stream().filter(t -> t.name().equals(name)).findFirst();
  }
}

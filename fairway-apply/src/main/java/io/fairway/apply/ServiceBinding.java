package io.fairway.apply;

import io.fairway.table.Dest;
import io.fairway.table.Service;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Binds a framework virtual server to its IPVS services.
 *
 * <p>A plain {@code virtual_server} is one service. A {@code virtual_server group} is one service
 * per member address and fwmark, and every real-server change fans out to all of them, as
 * keepalived's {@code ipvs_group_cmd} does; quorum and the sorry server stay per virtual server.
 *
 * @param name the name the health-check framework reports verdicts under
 * @param services the kernel services (at least one)
 * @param servers the real servers by name, in configuration order
 * @param sorryServer installed while quorum is lost, so clients get a controlled response instead
 *     of a connection refused; {@code null} when there is none
 * @param sorryServerInhibit drain the sorry server instead of removing it, the same distinction the
 *     package comment draws for a real server. It changes when the destination exists as well as
 *     how it leaves: an inhibit sorry server sits in the table from startup at weight zero, so that
 *     losing quorum raises a weight rather than inserting an entry (keepalived ipwrapper.c:661-673)
 * @param trackedFiles the real_server track_file entries, so the file watcher can find which
 *     backend each belongs to
 * @param overflow {@code overflow_to_sorry_server}: the sorry server also stands by in the table at
 *     weight zero and takes new connections while the pool is full ({@link OverflowWatch} raises
 *     and lowers it through {@link Applier#overflow}); it needs a sorry server
 */
public record ServiceBinding(
    String name,
    List<Service> services,
    Map<String, ServerBinding> servers,
    @Nullable Dest sorryServer,
    boolean sorryServerInhibit,
    List<TrackedFile> trackedFiles,
    boolean overflow) {

  public ServiceBinding {
    Objects.requireNonNull(name, "name");
    services = List.copyOf(services);
    if (services.isEmpty()) {
      throw new IllegalArgumentException(name + ": a virtual server needs at least one service");
    }
    servers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(servers));
    trackedFiles = List.copyOf(trackedFiles);
    if (overflow && sorryServer == null) {
      throw new IllegalArgumentException(name + ": overflow needs a sorry server");
    }
  }

  /** Without overflow to the sorry server (keepalived's behaviour). */
  public ServiceBinding(
      String name,
      List<Service> services,
      Map<String, ServerBinding> servers,
      @Nullable Dest sorryServer,
      boolean sorryServerInhibit,
      List<TrackedFile> trackedFiles) {
    this(name, services, servers, sorryServer, sorryServerInhibit, trackedFiles, false);
  }

  /**
   * Whether the sorry server sits in the table while it is not serving: at weight zero, so that
   * serving (quorum lost, or overflow) is a weight change rather than a new entry.
   */
  public boolean sorryStandsBy() {
    return sorryServer != null && (sorryServerInhibit || overflow);
  }

  /** A single-service virtual server without sorry server or tracked files. */
  public static ServiceBinding of(String name, Service service, List<ServerBinding> servers) {
    return new ServiceBinding(name, List.of(service), byName(servers), null, false, List.of());
  }

  /** The servers keyed by name, preserving order. */
  public static Map<String, ServerBinding> byName(List<ServerBinding> servers) {
    Map<String, ServerBinding> m = new LinkedHashMap<>();
    for (ServerBinding rs : servers) {
      if (m.put(rs.name(), rs) != null) {
        throw new IllegalArgumentException("duplicate real server name " + rs.name());
      }
    }
    return m;
  }

  /** This virtual server with a sorry server. */
  public ServiceBinding withSorryServer(Dest sorry, boolean inhibit) {
    return new ServiceBinding(
        name, services, servers, sorry, inhibit, trackedFiles, overflow && sorry != null);
  }

  /** This virtual server with overflow to its sorry server on or off. */
  public ServiceBinding withOverflow(boolean on) {
    return new ServiceBinding(
        name, services, servers, sorryServer, sorryServerInhibit, trackedFiles, on);
  }
}

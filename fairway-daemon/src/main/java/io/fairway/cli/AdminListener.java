package io.fairway.cli;

import io.fairway.daemon.Daemon;
import io.fairway.daemon.admin.AdminApi;
import io.fairway.daemon.admin.AdminHosts;
import io.fairway.daemon.admin.AdminHttpServer;
import io.fairway.daemon.admin.AdminSessions;
import io.fairway.daemon.admin.AdminToken;
import io.fairway.daemon.admin.DaemonMetrics;
import io.fairway.daemon.admin.ServicesView;
import io.fairway.daemon.admin.StateFile;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code fairway run}'s admin listener: the address rule (loopback, or anything with a token file),
 * the token (given, or generated into the runtime directory and logged), the state file written on
 * every admin change, and the runtime API on the Netty listener.
 */
final class AdminListener implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminListener.class);

  /** A client has this long to send a whole request. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private final AdminHttpServer server;
  private final AdminApi api;

  /** The token file this listener generated, removed at close; null when given. */
  private @Nullable Path generated;

  private AdminListener(AdminHttpServer server, AdminApi api) {
    this.server = server;
    this.api = api;
  }

  /**
   * Starts the listener for a running daemon.
   *
   * @param hosts the {@code Host} names answered ({@code --admin-host})
   * @param tokenFile {@code --admin-token-file}, or null to generate one
   * @param status the text of {@code GET /status}
   * @param reload what {@code POST /api/v1/reload} does (SIGHUP's path), null or the refusal
   * @param extra wraps the API's routes with more in front (VRRP's)
   * @throws IOException not bindable, or the token file cannot be read or written (the message says
   *     which file)
   */
  static AdminListener start(
      InetSocketAddress address,
      AdminHosts hosts,
      @Nullable Path tokenFile,
      @Nullable StateFile state,
      Daemon daemon,
      io.prometheus.metrics.model.registry.PrometheusRegistry registry,
      java.util.function.Supplier<String> status,
      java.util.function.Supplier<String> reload,
      java.util.function.UnaryOperator<io.fairway.daemon.admin.AdminRoutes> extra)
      throws IOException {
    // Checked first: a bad value is refused before anything is opened.
    Duration requestTimeout =
        io.fairway.daemon.admin.AdminProperties.seconds(
            "fairway.admin.requestTimeoutSeconds", REQUEST_TIMEOUT);
    AdminSessions sessions = new AdminSessions();
    boolean loopback = address.getAddress().isLoopbackAddress();
    if (!loopback && tokenFile == null) {
      throw new IllegalArgumentException(
          "a non-loopback address needs --admin-token-file (reads and"
              + " mutations then need its token)");
    }
    AtomicReference<AdminToken> token = new AtomicReference<>();
    if (tokenFile != null) {
      token.set(AdminToken.read(tokenFile));
      if (AdminToken.tooOpen(tokenFile)) {
        LOG.warn("{} is readable by group or others; chmod 600 it", tokenFile);
      }
    }
    DaemonMetrics metrics =
        new DaemonMetrics(registry, () -> ServicesView.of(daemon), daemon.events())
            .withProxy(daemon);
    AdminApi api = new AdminApi(daemon, () -> save(state, daemon), metrics::scrape, status, reload);
    AdminHttpServer server =
        AdminHttpServer.start(
            address,
            token::get,
            !loopback,
            requestTimeout,
            extra.apply(api),
            daemon.events(),
            sessions,
            hosts);
    Path generated = tokenFile == null ? generate(token, server.address().getPort()) : null;
    LOG.info("admin listener on {}", server.address());
    AdminListener l = new AdminListener(server, api);
    l.generated = generated;
    return l;
  }

  /**
   * Generates the token into the runtime directory for the listener on {@code port}.
   *
   * @return the file written, or null when it cannot be (every mutation is then refused)
   */
  private static @Nullable Path generate(AtomicReference<AdminToken> token, int port) {
    Path generated = AdminToken.defaultFile(System.getenv(), port);
    try {
      token.set(AdminToken.generate(generated));
      LOG.info(
          "admin token written to {} (mode 0600; fairway server/reload read it from there)",
          generated);
      return generated;
    } catch (IOException e) {
      // Reads still work; a read-only runtime directory must not stop the load balancer.
      LOG.warn(
          "cannot write the admin token to {}: {}; every admin mutation is refused (401) until"
              + " fairway run is started with --admin-token-file",
          generated,
          e.getMessage());
      return null;
    }
  }

  private static void save(@Nullable StateFile state, Daemon daemon) {
    if (state == null) {
      return;
    }
    try {
      state.save(daemon.admin().settings());
    } catch (IOException e) {
      LOG.error("cannot write the state file {}: {}", state.path(), e.getMessage());
    }
  }

  InetSocketAddress address() {
    return server.address();
  }

  @Override
  public void close() {
    server.close();
    api.close();
    if (generated != null) {
      try {
        java.nio.file.Files.deleteIfExists(generated);
      } catch (IOException e) {
        LOG.warn("cannot remove {}: {}", generated, e.getMessage());
      }
    }
  }
}

package io.fairway.daemon;

import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.daemon.admin.AdminApi;
import io.fairway.daemon.admin.AdminHttpServer;
import io.fairway.daemon.admin.AdminResponse;
import io.fairway.daemon.admin.AdminSessions;
import io.fairway.daemon.admin.AdminToken;
import io.fairway.daemon.admin.DaemonMetrics;
import io.fairway.daemon.admin.ServicesView;
import io.fairway.table.Table;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A daemon running a keepalived.conf with real checks, behind its admin API and HTTP listener, as
 * the status page's tests drive it (in a browser, or with {@code fairway status}). {@link #close}
 * stops the listener, the API and the daemon, in that order; the table and the backends stay the
 * test's.
 */
public final class AdminFixture implements AutoCloseable {
  public final Daemon daemon;
  public final AdminToken token;
  public final AdminApi api;
  public final AdminHttpServer server;

  private AdminFixture(Daemon daemon, AdminToken token, AdminApi api, AdminHttpServer server) {
    this.daemon = daemon;
    this.token = token;
    this.api = api;
    this.server = server;
  }

  /**
   * A fixture to start with the file in {@code dir} over {@code table}: by default the kernel
   * plane's loader, the page's metrics, and a loopback listener whose reads need no token.
   */
  public static Builder in(Path dir, Table table) {
    return new Builder(dir, table);
  }

  /** How to start one ({@link #in}). */
  public static final class Builder {
    private final Path dir;
    private final Table table;
    private boolean userspace;
    private InetAddress address = InetAddress.getLoopbackAddress();
    private boolean tokenForReads;
    private AdminSessions sessions = new AdminSessions();
    private Function<Daemon, Supplier<AdminResponse>> metrics =
        d -> new DaemonMetrics(() -> ServicesView.of(d), d.events())::scrape;

    private Builder(Path dir, Table table) {
      this.dir = dir;
      this.table = table;
    }

    /** Loads the file for the userspace plane (lb_kind HTTP and the proxy's keywords). */
    public Builder userspace() {
      this.userspace = true;
      return this;
    }

    /**
     * Listens on {@code address} with reads behind the token, as a non-loopback {@code --admin}
     * does, its read sessions kept in {@code sessions}.
     */
    public Builder readsNeedToken(InetAddress address, AdminSessions sessions) {
      this.address = address;
      this.tokenForReads = true;
      this.sessions = sessions;
      return this;
    }

    /** {@code GET /metrics} answers this instead of the daemon's metrics. */
    public Builder metrics(Supplier<AdminResponse> metrics) {
      this.metrics = d -> metrics;
      return this;
    }

    /**
     * Writes {@code conf} as {@code dir/keepalived.conf} and starts the daemon, its API and the
     * listener; what started is stopped again when a later step fails.
     */
    public AdminFixture start(String conf) throws Exception {
      Path file = dir.resolve("keepalived.conf");
      Files.writeString(file, conf);
      Daemon daemon =
          new Daemon(
              file,
              new KeepalivedLoader(userspace, CheckSpecs::from),
              table,
              CheckEngine::builder,
              Duration.ZERO,
              Clock.systemUTC());
      AdminApi api = null;
      try {
        daemon.start();
        AdminToken token = AdminToken.generate(dir.resolve("admin.token"));
        api = new AdminApi(daemon, () -> {}, metrics.apply(daemon));
        AdminHttpServer server =
            AdminHttpServer.start(
                new InetSocketAddress(address, 0),
                () -> token,
                tokenForReads,
                Duration.ofSeconds(10),
                api,
                daemon.events(),
                sessions);
        return new AdminFixture(daemon, token, api, server);
      } catch (Exception e) {
        if (api != null) {
          api.close();
        }
        daemon.stop();
        throw e;
      }
    }
  }

  /** The listener's URL without a path: {@code http://127.0.0.1:PORT}. */
  public String base() {
    InetSocketAddress a = server.address();
    return "http://" + a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  /** The listener's {@code host:port}, for {@code fairway status --admin}. */
  public String admin() {
    InetSocketAddress a = server.address();
    return a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  @Override
  public void close() {
    try {
      server.close();
    } finally {
      try {
        api.close();
      } finally {
        daemon.stop();
      }
    }
  }

  /**
   * A loopback TCP listener that accepts and closes: enough for a TCP_CHECK. Closing it is the
   * test's (its accepting thread then ends).
   */
  public static ServerSocket tcpBackend() throws Exception {
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (!s.isClosed()) {
                try (Socket c = s.accept()) {
                  c.getInputStream();
                } catch (Exception e) {
                  return;
                }
              }
            },
            "backend-" + s.getLocalPort());
    t.setDaemon(true);
    t.start();
    return s;
  }

  /** A real_server on 127.0.0.1:{@code port} with a TCP_CHECK that does not retry. */
  public static String tcpCheckedServer(int port) {
    return """
            real_server 127.0.0.1 %d {
                weight 1
                TCP_CHECK {
                    connect_timeout 1
                    retry 0
                }
            }
        """
        .formatted(port);
  }

  /** A round-robin virtual_server on 127.0.0.1:{@code port}, checked every second. */
  public static String virtualServer(int port, String lbKind, String realServers) {
    return """
        virtual_server 127.0.0.1 %d {
            delay_loop 1
            lb_algo rr
            lb_kind %s
            protocol TCP
        %s}
        """
        .formatted(port, lbKind, realServers);
  }
}

package io.fairway.cli;

import io.fairway.check.CheckConfigException;
import io.fairway.check.engine.CheckEngine;
import io.fairway.daemon.AdminServer;
import io.fairway.daemon.Daemon;
import io.fairway.daemon.KeepalivedLoader;
import io.fairway.daemon.Loader;
import io.fairway.check.config.CheckSpecs;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import io.fairway.ipvs.kernel.IpvsKernelTable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import io.fairway.proxy.ListenerSpec;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.ProxyTable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code fairway run -f keepalived.conf}: health-checks the real servers and keeps the table in
 * step, with keepalived's semantics. SIGHUP reloads, SIGTERM/SIGINT remove what Fairway installed
 * and exit 0; with {@code --userspace}, after a soft stop ({@link SoftStop}).
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Run the load balancer on a keepalived.conf.",
      "Health-checks the real servers and keeps the kernel's IPVS table (or, with --userspace,"
          + " Fairway's proxy) in step. SIGHUP reloads the file (an invalid file is refused, the"
          + " running one keeps working); SIGTERM removes what Fairway installed and exits 0."
    })
public final class RunCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = {"-f", "--use-file"}, required = true, paramLabel = "FILE",
      description = "keepalived.conf to run (keepalived's -f)")
  Path file;

  @Option(names = "--userspace",
      description = "forward with Fairway's userspace proxy instead of the kernel's IPVS (no root needed)")
  boolean userspace;

  @Option(names = "--admin", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:9107",
      description = "loopback address of the admin endpoint fairway status reads (default ${DEFAULT-VALUE}); 'off' disables it")
  String admin;

  @Option(names = "--drift-interval", paramLabel = "SECONDS", defaultValue = "10",
      description = "read the table back and repair changes made behind Fairway's back every SECONDS (0 = never; default ${DEFAULT-VALUE})")
  double driftSeconds;

  @Option(names = "--grace-period", paramLabel = "SECONDS", defaultValue = "30",
      description = "--userspace: at SIGTERM stop accepting and let connections in flight finish for up to SECONDS"
          + " (a second SIGTERM stops at once; 0 = no grace; default ${DEFAULT-VALUE})")
  double graceSeconds;

  @Option(names = {"-I", "--dont-release-ipvs"},
      description = "leave the table as it is at exit (keepalived's -I)")
  boolean dontRelease;

  @Override
  public Integer call() throws Exception {
    var err = spec.commandLine().getErr();
    if (driftSeconds < 0) {
      err.println("fairway: --drift-interval must be >= 0, got " + driftSeconds);
      return Main.EXIT_USAGE;
    }
    if (!(graceSeconds >= 0 && graceSeconds <= 86_400)) {
      err.println("fairway: --grace-period must be between 0 and 86400 seconds, got " + graceSeconds);
      return Main.EXIT_USAGE;
    }
    InetSocketAddress adminAddress = null;
    if (!"off".equals(admin)) {
      try {
        adminAddress = StatusCommand.parseAddress(admin);
      } catch (IllegalArgumentException e) {
        err.println("fairway: --admin: " + e.getMessage());
        return Main.EXIT_USAGE;
      }
    }
    // The userspace proxy also needs each service's listener spec (mode, key source, director
    // parameters), published by the loader on every successful load.
    AtomicReference<Map<ServiceKey, ListenerSpec>> listenerSpecs = new AtomicReference<>(Map.of());
    Loader loader = userspace
        ? new DemoCommand.SpecLoader(new KeepalivedLoader(true, CheckSpecs::from), listenerSpecs)
        : new KeepalivedLoader(false, CheckSpecs::from);
    io.fairway.daemon.Loaded first;
    try {
      // Refuse a bad file before touching the table.
      first = loader.load(file);
    } catch (Loader.LoadException e) {
      e.getMessage().lines().forEach(l -> err.println("fairway: " + l));
      return 1;
    }
    Table table;
    try {
      table = userspace
          ? new ProxyTable(proxyOptions(first), k -> listenerSpecs.get().get(k))
          : IpvsKernelTable.open();
    } catch (TableException | IllegalStateException e) { // IllegalState: -Dfairway.proxy.transport
      err.println("fairway: " + e.getMessage());
      return 1;
    }
    Daemon daemon = new Daemon(file, loader, table, CheckEngine::builder,
        Duration.ofMillis((long) (driftSeconds * 1000)), Clock.systemUTC());
    try {
      daemon.start();
    } catch (Loader.LoadException | CheckConfigException e) {
      err.println("fairway: " + e.getMessage());
      table.close();
      return 1;
    } catch (TableException e) {
      err.println("fairway: " + e.getMessage());
      if (!dontRelease) {
        daemon.stop();
      }
      table.close();
      return 1;
    }
    AdminServer server = null;
    if (adminAddress != null) {
      try {
        server = AdminServer.start(adminAddress, daemon::status);
      } catch (IOException | IllegalArgumentException e) {
        err.println("fairway: --admin " + admin + ": " + e.getMessage());
        stop(daemon, table);
        return 1;
      }
    }
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch now = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicInteger stops = new java.util.concurrent.atomic.AtomicInteger();
    Runnable onStop = () -> (stops.incrementAndGet() == 1 ? stop : now).countDown();
    Signals.on("HUP", daemon::reload);
    Signals.on("TERM", onStop);
    Signals.on("INT", onStop);
    stop.await();
    if (table instanceof ProxyTable proxy && graceSeconds > 0) {
      SoftStop.drain(proxy, Duration.ofMillis((long) (graceSeconds * 1000)), now);
    }
    if (server != null) {
      server.close();
    }
    stop(daemon, table);
    return 0;
  }

  /**
   * The proxy's options: {@code lvs_timeouts tcp N}, the kernel's idle timeout for established
   * connections, becomes the proxy's idle timeout, and {@code udp N} the lifetime of an idle UDP
   * flow, so a file tuned for IPVS behaves alike.
   */
  static ProxyOptions proxyOptions(io.fairway.daemon.Loaded loaded) {
    ProxyOptions o = ProxyOptions.defaults();
    int tcp = loaded.lvs().timeouts().tcp();
    int udp = loaded.lvs().timeouts().udp();
    if (tcp > 0) {
      o = o.withIdleTimeout(Duration.ofSeconds(tcp));
    }
    return udp > 0 ? o.withUdpTimeout(Duration.ofSeconds(udp)) : o;
  }

  private void stop(Daemon daemon, Table table) throws TableException {
    if (dontRelease) {
      daemon.detach();
    } else {
      daemon.stop();
    }
    table.close();
  }
}

package io.fairway.cli;

import io.fairway.check.CheckConfigException;
import io.fairway.check.checker.TcpProbe;
import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.daemon.Daemon;
import io.fairway.daemon.KeepalivedLoader;
import io.fairway.daemon.Loader;
import io.fairway.daemon.admin.AdminHosts;
import io.fairway.daemon.admin.CheckMetrics;
import io.fairway.daemon.admin.StateFile;
import io.fairway.daemon.systemd.NativeWorkDir;
import io.fairway.daemon.systemd.SystemdNotifier;
import io.fairway.ipvs.kernel.IpvsKernelTable;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

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

  @Option(
      names = {"-f", "--use-file"},
      required = true,
      paramLabel = "FILE",
      description = "keepalived.conf to run (keepalived's -f)")
  Path file;

  @Option(
      names = "--userspace",
      description =
          "forward with Fairway's userspace proxy instead of the kernel's IPVS (no root needed)")
  boolean userspace;

  @Option(
      names = "--admin",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:9107",
      description =
          "address of the admin listener: runtime API, /metrics, status page (default ${DEFAULT-VALUE}); 'off' disables it. A non-loopback address needs --admin-token-file")
  String admin;

  @Option(
      names = "--admin-token-file",
      paramLabel = "FILE",
      description =
          "the bearer token every admin mutation must carry (default: a random one written to a 0600 file in the runtime directory, path logged)")
  Path adminTokenFile;

  @Option(
      names = "--admin-host",
      paramLabel = "NAME",
      description =
          "a host name the admin listener answers to besides its address and localhost (repeatable); a request with any other Host gets 421, which keeps web pages from reaching it by DNS rebinding")
  List<String> adminHosts = new ArrayList<>();

  /** {@link #adminHosts}, checked. */
  private AdminHosts hosts = AdminHosts.DEFAULT;

  @Option(
      names = "--state-file",
      paramLabel = "FILE",
      description =
          "keep the operators' drain/maint/weight settings in FILE (written atomically on each change) and restore them at start")
  Path stateFile;

  @Option(
      names = "--drift-interval",
      paramLabel = "SECONDS",
      defaultValue = "10",
      description =
          "read the table back and repair changes made behind Fairway's back every SECONDS (0 = never; default ${DEFAULT-VALUE})")
  double driftSeconds;

  @Option(
      names = "--grace-period",
      paramLabel = "SECONDS",
      defaultValue = "30",
      description =
          "--userspace: at SIGTERM stop accepting and let connections in flight finish for up to SECONDS"
              + " (a second SIGTERM stops at once; 0 = no grace; default ${DEFAULT-VALUE})")
  double graceSeconds;

  @Option(
      names = "--overflow-interval",
      paramLabel = "SECONDS",
      defaultValue = "0.01",
      description =
          "kernel IPVS: read the connection counters for overflow_to_sorry_server every SECONDS (default ${DEFAULT-VALUE}); the userspace proxy overflows by itself")
  double overflowSeconds;

  @Option(
      names = "--tcp-check",
      paramLabel = "MODE",
      defaultValue = "connect",
      converter = TcpProbeConverter.class,
      description =
          "how TCP_CHECK probes: 'connect' (a full handshake, as keepalived; default) or 'half-open'"
              + " (a SYN from a raw socket, the kernel resets the SYN-ACK: about 60%% of the CPU;"
              + " needs CAP_NET_RAW, IPv4, no bind_port/bind_if/fwmark, else that check connects)")
  TcpProbe tcpCheck;

  /** {@code connect} or {@code half-open}, the words of {@link TcpProbe#option()}. */
  static final class TcpProbeConverter implements CommandLine.ITypeConverter<TcpProbe> {
    @Override
    public TcpProbe convert(String value) {
      try {
        return TcpProbe.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  @Option(
      names = {"-I", "--dont-release-ipvs"},
      description = "leave the table as it is at exit (keepalived's -I)")
  boolean dontRelease;

  @Option(
      names = {"-l", "--log-console"},
      description =
          "log to the console (keepalived's -l; Fairway always logs to stderr, which systemd sends to the journal)")
  boolean logConsole;

  @Option(
      names = {"-D", "--log-detail"},
      description =
          "detailed log messages (keepalived's -D): debug level for Fairway's own loggers, checker retries included")
  boolean logDetail;

  @Option(
      names = {"-S", "--log-facility"},
      paramLabel = "N",
      description =
          "syslog facility local0..local7 for the journal's priority prefix (keepalived's -S; default: none, the journal's own)")
  Integer logFacility;

  /**
   * Runs once the table is applied and the admin endpoint answers, and then the run stops as a
   * SIGTERM would stop it; null (the command line) waits for the signal. For {@link
   * TrainingRunCommand}.
   */
  java.util.function.@Nullable Consumer<Table> whenReady;

  /** What one run wires together: what {@link #serve} starts, and stops in order. */
  private record Parts(
      Daemon daemon,
      Table table,
      VrrpRun vrrp,
      SyncRun sync,
      SystemdNotifier systemd,
      @Nullable StateFile state,
      PrometheusRegistry registry,
      io.fairway.daemon.discovery.DiscoveryLoop dns) {}

  @Override
  public Integer call() throws Exception {
    var err = spec.commandLine().getErr();
    Integer usage = checkOptions(err);
    if (usage != null) {
      return usage;
    }
    InetSocketAddress adminAddress = null;
    if (!"off".equals(admin)) {
      try {
        adminAddress = AdminClient.parseAddress(admin, adminTokenFile != null);
      } catch (IllegalArgumentException e) {
        err.println("fairway: --admin: " + e.getMessage());
        return Main.EXIT_USAGE;
      }
    }
    // The loader (script checkers), netlink (the kernel table), PING and bindto checks and
    // systemd's notify socket go through JNA: say what it needs now, not obscurely later.
    var jna = NativeWorkDir.checkJna();
    if (jna.isPresent()) {
      err.println("fairway: " + jna.get());
      return 1;
    }
    // One parse and one plan per load; the daemon hands the plan to the userspace proxy.
    // real_server_dns: the servers found are added to every load's model (a Fairway extension).
    io.fairway.daemon.discovery.DiscoveryLoop dns = new io.fairway.daemon.discovery.DiscoveryLoop();
    Loader loader = new KeepalivedLoader(userspace, CheckSpecs::from, dns::expand);
    io.fairway.daemon.Loaded first;
    try {
      // Refuse a bad file before touching the table.
      first = loader.load(file);
    } catch (Loader.LoadException e) {
      e.getMessage().lines().forEach(l -> err.println("fairway: " + l));
      return 1;
    }
    VrrpRun vrrp = VrrpRun.of(file);
    SyncRun sync = SyncRun.of(first.plan(), userspace);
    sync.follow(vrrp);
    if (vrrp.only()) {
      // Only VRRP blocks: no table to open (no IPVS needed unless lvs_sync_daemon), no checkers.
      return vrrp.runAlone(file, loader, adminAddress, hosts, admin, adminTokenFile, err, sync);
    }
    Parts parts = wire(loader, vrrp, sync, dns);
    if (parts == null) {
      return 1;
    }
    return withSignals(parts, adminAddress, first.bindings().size());
  }

  /**
   * The options that need more than picocli's parsing ({@code -S}, {@code -D}, the intervals,
   * {@code --admin-host}).
   *
   * @return null when they are good, else the exit code (what is wrong is on {@code err})
   */
  private @Nullable Integer checkOptions(java.io.PrintWriter err) {
    if (logFacility != null) {
      try {
        io.fairway.daemon.log.JournalFormat.localFacility(logFacility);
      } catch (IllegalArgumentException e) {
        err.println("fairway: -S: " + e.getMessage());
        return Main.EXIT_USAGE;
      }
    }
    if (logDetail) {
      ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.fairway"))
          .setLevel(ch.qos.logback.classic.Level.DEBUG);
    }
    if (driftSeconds < 0) {
      err.println("fairway: --drift-interval must be >= 0, got " + driftSeconds);
      return Main.EXIT_USAGE;
    }
    if (!(graceSeconds >= 0 && graceSeconds <= 86_400)) {
      err.println(
          "fairway: --grace-period must be between 0 and 86400 seconds, got " + graceSeconds);
      return Main.EXIT_USAGE;
    }
    if (!(overflowSeconds > 0) || overflowSeconds > 60) {
      err.println(
          "fairway: --overflow-interval must be above 0 and at most 60 seconds, got "
              + overflowSeconds);
      return Main.EXIT_USAGE;
    }
    try {
      hosts = AdminHosts.of(adminHosts);
    } catch (IllegalArgumentException e) {
      err.println("fairway: --admin-host: " + e.getMessage());
      return Main.EXIT_USAGE;
    }
    return null;
  }

  /**
   * Opens the table and builds the daemon over it, metrics registered and admin state restored.
   *
   * @return null when the table or the state file cannot be opened (said on standard error)
   */
  private @Nullable Parts wire(
      Loader loader, VrrpRun vrrp, SyncRun sync, io.fairway.daemon.discovery.DiscoveryLoop dns)
      throws TableException {
    var err = spec.commandLine().getErr();
    Table table;
    try {
      table =
          userspace
              ? new ProxyTable(ProxyOptions.defaults(), null) // lvs_timeouts come with each plan
              : IpvsKernelTable.open();
    } catch (TableException | IllegalStateException e) { // IllegalState: -Dfairway.proxy.transport
      err.println("fairway: " + e.getMessage());
      return null;
    }
    SystemdNotifier systemd = SystemdNotifier.fromEnvironment();
    systemd.status("applying " + file);
    // The checks' metrics are wired into the engine before the admin listener exists.
    PrometheusRegistry registry = new PrometheusRegistry();
    CheckMetrics checkMetrics = new CheckMetrics(registry);
    io.fairway.daemon.vrrp.VrrpMetrics.register(registry, vrrp::snapshot);
    io.fairway.daemon.discovery.DnsMetrics.register(registry, dns::discovery);
    Daemon daemon =
        new Daemon(
            file,
            loader,
            table,
            () -> CheckEngine.builder().observer(checkMetrics).tcpProbe(tcpCheck),
            Duration.ofMillis((long) (driftSeconds * 1000)),
            Clock.systemUTC());
    io.fairway.daemon.announce.AnnounceMetrics.register(registry, daemon::announcing);
    StateFile state = stateFile == null ? null : new StateFile(stateFile);
    if (state != null) {
      try {
        daemon.restoreAdmin(state.load());
      } catch (IOException e) {
        err.println("fairway: --state-file: " + e.getMessage());
        table.close();
        return null;
      }
    }
    if (!userspace) {
      daemon.overflowInterval(Duration.ofNanos((long) (overflowSeconds * 1e9)));
    }
    return new Parts(daemon, table, vrrp, sync, systemd, state, registry, dns);
  }

  /** Serves with the signals caught: TERM and INT stop, HUP reloads, USR1 reopens access logs. */
  // The resources are the handlers and the DNS loop, held while serving: closing them is the point.
  @SuppressWarnings("try")
  private int withSignals(Parts p, @Nullable InetSocketAddress adminAddress, int virtualServers)
      throws Exception {
    // SIGTERM from here on is a clean stop, even while the table is being installed (a default
    // JVM exit there would leave half a table behind and exit 143).
    // The first SIGTERM/SIGINT stops (softly on the userspace plane), a second one stops now.
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch now = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicInteger stops =
        new java.util.concurrent.atomic.AtomicInteger();
    Runnable onStop = () -> (stops.incrementAndGet() == 1 ? stop : now).countDown();
    // SIGHUP is caught from here on too, and carried out once the daemon serves (DeferredSignal).
    DeferredSignal hup = new DeferredSignal(() -> reload(p));
    // A changed DNS answer reloads as SIGHUP does, and not before the daemon serves.
    p.dns().start(hup::signal);
    try (var dns = p.dns();
        Signals.Restore term = Signals.on("TERM", onStop);
        Signals.Restore interrupt = Signals.on("INT", onStop);
        Signals.Restore hangUp = Signals.on("HUP", hup::signal);
        // logrotate's postrotate: the access logs are written to new files at their paths.
        Signals.Restore usr1 = Signals.on("USR1", () -> reopenAccessLogs(p.table()))) {
      return serve(p, adminAddress, stop, now, virtualServers, hup);
    }
  }

  private static void reopenAccessLogs(Table table) {
    if (table instanceof ProxyTable proxy) {
      proxy.reopenAccessLogs();
      org.slf4j.LoggerFactory.getLogger(RunCommand.class).info("SIGUSR1: access logs reopened");
    }
  }

  /**
   * Starts the daemon and the admin endpoint, serves until {@code stop}, then stops: on the
   * userspace plane after a soft stop that {@code now} cuts short.
   */
  private int serve(
      Parts p,
      @Nullable InetSocketAddress adminAddress,
      CountDownLatch stop,
      CountDownLatch now,
      int virtualServers,
      DeferredSignal hup)
      throws Exception {
    if (!start(p)) {
      return 1;
    }
    AdminListener server = null;
    // daemon.start() returned: the table is applied and the listeners are bound. SIGHUP reloads
    // from before the admin endpoint answers: whoever sees `fairway status` working may reload at
    // once. One that came during the start is carried out now.
    hup.open();
    if (adminAddress != null) {
      try {
        server = startAdmin(p, adminAddress);
      } catch (IOException | IllegalArgumentException e) {
        spec.commandLine().getErr().println("fairway: --admin " + admin + ": " + e.getMessage());
        p.sync().close();
        p.vrrp().close();
        stop(p.daemon(), p.table());
        return 1;
      }
    }
    p.systemd().ready("running " + file + " (" + virtualServers + " virtual servers)");
    if (whenReady != null) {
      whenReady.accept(p.table());
    } else {
      stop.await();
    }
    hup.close(); // a SIGHUP while stopping reloads nothing
    withdraw(p.daemon(), p.systemd(), now);
    if (p.table() instanceof ProxyTable proxy && graceSeconds > 0) {
      p.systemd()
          .stopping(
              "stopping: letting connections in flight finish (up to " + graceSeconds + " s)");
      SoftStop.drain(proxy, Duration.ofMillis((long) (graceSeconds * 1000)), now);
    }
    p.systemd().stopping("stopping: removing what Fairway installed");
    if (server != null) {
      server.close();
    }
    p.sync().close(); // keepalived stops the sync daemon before the masters hand over
    p.vrrp().close(); // masters hand over (priority 0) before the table goes
    stop(p.daemon(), p.table());
    return 0;
  }

  /**
   * Starts the daemon, then the sync daemons and VRRP.
   *
   * @return whether all started; if not, what did is stopped and the reason is on standard error
   */
  private boolean start(Parts p) throws TableException {
    var err = spec.commandLine().getErr();
    Daemon daemon = p.daemon();
    try {
      daemon.start();
    } catch (Loader.LoadException | CheckConfigException e) {
      err.println("fairway: " + e.getMessage());
      p.table().close();
      return false;
    } catch (TableException e) {
      err.println("fairway: " + e.getMessage());
      if (!dontRelease) {
        daemon.stop();
      }
      p.table().close();
      return false;
    }
    try {
      p.vrrp().events(daemon.events());
      p.sync().start(); // the backup daemon before the instance it follows can become master
      p.vrrp().start();
    } catch (IOException e) {
      Objects.requireNonNull(e.getMessage(), "VRRP's and the sync daemons' errors say why")
          .lines()
          .forEach(l -> err.println("fairway: " + l));
      p.sync().close();
      stop(daemon, p.table());
      return false;
    }
    return true;
  }

  /** The admin listener: the daemon's API with VRRP's, announce's and DNS's routes around it. */
  private AdminListener startAdmin(Parts p, InetSocketAddress adminAddress) throws IOException {
    Daemon daemon = p.daemon();
    VrrpRun vrrp = p.vrrp();
    SyncRun sync = p.sync();
    var dns = p.dns();
    return AdminListener.start(
        adminAddress,
        hosts,
        adminTokenFile,
        p.state(),
        daemon,
        p.registry(),
        () ->
            daemon.status()
                + vrrp.status()
                + sync.status()
                + io.fairway.daemon.discovery.DnsStatus.text(dns.discovery().states()),
        () -> reload(p),
        routes ->
            new io.fairway.daemon.discovery.DnsRoutes(
                new AnnounceRoutes(
                    new io.fairway.daemon.vrrp.VrrpRoutes(routes, vrrp::snapshot, sync::snapshot),
                    daemon),
                dns.discovery()));
  }

  /**
   * The first step of a stop: the announced routes go, and the routers get {@code
   * announce_withdraw_delay} to move new flows away before the listeners close; a second SIGTERM
   * cuts the wait short.
   */
  private static void withdraw(Daemon daemon, SystemdNotifier systemd, CountDownLatch now)
      throws InterruptedException {
    Duration delay = daemon.withdrawAnnouncements();
    if (!delay.isZero()) {
      systemd.stopping(
          "stopping: routes withdrawn, waiting " + delay.toMillis() + " ms for the routers");
      now.await(delay.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }
  }

  /**
   * SIGHUP: reload by difference, with systemd told when it begins and when it is done. VRRP's and
   * the sync daemons' parts are checked first and applied last (VRRP, then the daemons that follow
   * it), so a reload either side refuses changes nothing.
   */
  private synchronized @Nullable String reload(Parts p) {
    Daemon daemon = p.daemon();
    VrrpRun vrrp = p.vrrp();
    SystemdNotifier systemd = p.systemd();
    systemd.reloading("reloading " + file);
    String refused;
    try {
      VrrpRun.Step step = vrrp.prepare(false);
      SyncRun.Step syncStep = vrrp.prepareSync(step, p.sync());
      refused = daemon.reload();
      // "partially applied": the new plan is in place, with parts the table refused.
      if (refused == null || refused.startsWith("partially applied")) {
        step.apply();
        refused = VrrpRun.withSync(refused, syncStep.apply());
      } else {
        step.abandon();
        syncStep.abandon();
      }
    } catch (VrrpRun.Refused e) {
      refused = e.getMessage();
    }
    systemd.ready(
        refused == null
            ? "running " + file + " (reload " + daemon.reloads() + " applied)"
            : "reload refused, still running the previous configuration: " + refused);
    return refused;
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

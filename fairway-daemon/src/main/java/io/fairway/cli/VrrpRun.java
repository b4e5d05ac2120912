package io.fairway.cli;

import io.fairway.config.ConfigException;
import io.fairway.config.KeepalivedConfig;
import io.fairway.config.model.Config;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.daemon.EventHub;
import io.fairway.daemon.EventKind;
import io.fairway.daemon.VrrpStatusFormat;
import io.fairway.daemon.vrrp.VrrpEvents;
import io.fairway.daemon.vrrp.VrrpMetrics;
import io.fairway.daemon.vrrp.VrrpRoutes;
import io.fairway.vrrp.VrrpSpeaker;
import io.fairway.vrrp.io.Capabilities;
import io.fairway.vrrp.view.VrrpSnapshot;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The VRRP side of {@code fairway run}: starts a {@link VrrpSpeaker} for the file's vrrp_instance
 * blocks next to the virtual servers, or alone for a file that has only VRRP, and reloads it by
 * difference at SIGHUP ({@link #prepare}).
 */
final class VrrpRun implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(VrrpRun.class);

  /** Why a failed start or prepare has a message: each names the keyword or the socket's error. */
  private static final String SAYS_WHY = "VRRP's and the sync daemons' errors say why";

  private final Path file;
  private Config config;
  private volatile @Nullable VrrpSpeaker speaker;
  private @Nullable EventHub events;
  private final java.util.List<VrrpSpeaker.StateListener> listeners = new java.util.ArrayList<>();

  private VrrpRun(Path file, Config config) {
    this.file = file;
    this.config = config;
  }

  /** The file was loaded once already, so it parses. */
  static VrrpRun of(Path file) {
    return new VrrpRun(file, KeepalivedConfig.parse(file).config());
  }

  /** Tells {@code l} of every instance's state changes (add before {@link #start}). */
  void onStateChange(VrrpSpeaker.StateListener l) {
    listeners.add(l);
  }

  /** A file with VRRP instances and no virtual servers. */
  boolean only() {
    return config.vrrp().isPresent() && config.virtualServers().isEmpty();
  }

  /** State changes go to this stream ({@code vrrp_*} events), and reload refusals. */
  void events(EventHub hub) {
    this.events = hub;
  }

  void start() throws IOException {
    speaker = startSpeaker(config);
  }

  private @Nullable VrrpSpeaker startSpeaker(Config c) throws IOException {
    if (!c.vrrp().isPresent()) {
      return null;
    }
    Optional<String> lacking =
        lackingCapabilities(c, "; run it as root or with these capabilities");
    if (lacking.isPresent()) {
      throw new IOException(lacking.get());
    }
    VrrpSpeaker s = newSpeaker(c, c.vrrp());
    try {
      s.start();
    } catch (IOException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** A speaker for {@code c}'s VRRP, starting with {@code initial}, told to our listeners. */
  private VrrpSpeaker newSpeaker(Config c, io.fairway.config.model.vrrp.VrrpConfig initial) {
    VrrpSpeaker s = new VrrpSpeaker(initial, c.globalDefs().scriptUser(), null);
    s.trackFiles(trackFiles(c));
    if (events != null) {
      s.onTransition(new VrrpEvents(events));
    }
    listeners.forEach(s::onStateChange);
    return s;
  }

  private static Map<String, Path> trackFiles(Config c) {
    Map<String, Path> files = new HashMap<>();
    for (TrackFile t : c.trackFiles()) {
      files.put(t.name(), Path.of(t.file()));
    }
    return files;
  }

  String status() {
    VrrpSpeaker s = speaker;
    String text = s == null ? "" : VrrpStatusFormat.render(s.status());
    return text.isEmpty() ? "" : "\n" + text;
  }

  /** The running instances, or an empty snapshot when VRRP does not run. */
  VrrpSnapshot snapshot() {
    VrrpSpeaker s = speaker;
    return s == null ? VrrpSnapshot.empty() : s.snapshot();
  }

  Optional<VrrpSpeaker> speaker() {
    return Optional.ofNullable(speaker);
  }

  /** The VRRP half of a reload, checked against the running system; applied after the rest. */
  interface Step {
    void apply();

    void abandon();

    /** The file read again, when it parsed (else the daemon's reload refuses it). */
    Optional<Config> config();
  }

  private static final Step NOTHING =
      new Step() {
        @Override
        public void apply() {}

        @Override
        public void abandon() {}

        @Override
        public Optional<Config> config() {
          return Optional.empty();
        }
      };

  /**
   * The reload's {@code lvs_sync_daemon}, checked after VRRP's part (the daemons follow an instance
   * the reload may add).
   *
   * @throws Refused one line, logged and on the event stream; {@code step} abandoned
   */
  SyncRun.Step prepareSync(Step step, SyncRun sync) throws Refused {
    if (step.config().isEmpty()) {
      return NO_SYNC;
    }
    try {
      return sync.prepare(io.fairway.plan.PlanBuilder.sync(step.config().get()));
    } catch (io.fairway.plan.PlanException | IOException e) {
      step.abandon();
      throw refuse(Objects.requireNonNull(e.getMessage(), SAYS_WHY));
    }
  }

  private static final SyncRun.Step NO_SYNC =
      new SyncRun.Step() {
        @Override
        public @Nullable String apply() {
          return null;
        }

        @Override
        public void abandon() {}
      };

  /**
   * A reload's result with the sync daemons' refusal added: the rest is applied, so it is {@code
   * partially applied}, never a refusal.
   */
  static @Nullable String withSync(@Nullable String result, @Nullable String syncRefusal) {
    if (syncRefusal == null) {
      return result;
    }
    return result == null
        ? "partially applied; not applied: " + syncRefusal
        : result + "; " + syncRefusal;
  }

  /** The VRRP half of a reload does not fit; nothing changed. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String oneLine) {
      super(oneLine, null, false, false);
    }

    @Override
    public String getMessage() {
      return Objects.requireNonNull(super.getMessage(), "the constructor sets it");
    }
  }

  /**
   * Reads the file again and checks its VRRP part against the running system (interfaces,
   * addresses, sockets), so the reload is refused whole before anything changes. A file that does
   * not parse is left to the daemon's reload, which refuses it with its own line (in a VRRP-only
   * run, refused here).
   *
   * @param alone this run started with VRRP only: virtual servers cannot be added by a reload
   * @throws Refused one line, already logged and on the event stream
   */
  Step prepare(boolean alone) throws Refused {
    Config next;
    try {
      next = KeepalivedConfig.parse(file).config();
    } catch (ConfigException e) {
      if (alone) {
        throw refuse(e.getMessage());
      }
      return NOTHING;
    } catch (OutOfMemoryError e) {
      if (alone) {
        throw refuse(file + ": out of memory while loading the file (" + e.getMessage() + ")");
      }
      return NOTHING;
    }
    if (alone && !next.virtualServers().isEmpty()) {
      throw refuse(
          file
              + ": virtual_server blocks need a restart: this fairway run started with"
              + " VRRP only (no table)");
    }
    VrrpSpeaker running = speaker;
    if (running == null && !next.vrrp().isPresent()) {
      return step(next, () -> {}, () -> {});
    }
    if (running == null) {
      return startByReload(next);
    }
    // Also to a file without any vrrp_instance, as keepalived's VRRP process reloads to none:
    // each is removed by difference (a master hands over with priority 0, notifies run), and
    // the speaker stays, idle, for a later reload (closing it would cut the notify scripts).
    VrrpSpeaker.Prepared p;
    try {
      p = running.prepare(next.vrrp(), trackFiles(next));
    } catch (IOException e) {
      throw refuse(Objects.requireNonNull(e.getMessage(), SAYS_WHY));
    }
    boolean none = !next.vrrp().isPresent() && config.vrrp().isPresent();
    return step(
        next,
        () -> {
          if (none) {
            LOG.info("VRRP: every vrrp_instance removed by the reload; masters hand over");
          }
          applyQuietly(p);
        },
        p::abandon);
  }

  /**
   * A reload that brings VRRP to a run that had none. Everything that can fail happens here, before
   * the reload applies anything: the capabilities (a run started without VRRP may lack them), a
   * speaker started with no instance (its netlink and AF_PACKET sockets), and the new instances
   * checked and their sockets opened on it; applying adds them by difference, which starts them as
   * at start-up.
   */
  private Step startByReload(Config next) throws Refused {
    Optional<String> lacking =
        lackingCapabilities(next, " (it started without VRRP); restart it with them");
    if (lacking.isPresent()) {
      throw refuse(lacking.get());
    }
    VrrpSpeaker idle = newSpeaker(next, io.fairway.config.model.vrrp.VrrpConfig.empty());
    VrrpSpeaker.Prepared p;
    try {
      idle.start();
      p = idle.prepare(next.vrrp(), trackFiles(next));
    } catch (IOException e) {
      idle.close();
      throw refuse(Objects.requireNonNull(e.getMessage(), SAYS_WHY));
    }
    return step(
        next,
        () -> {
          applyQuietly(p);
          speaker = idle;
          LOG.info("VRRP: started {} instances by the reload", next.vrrp().instances().size());
        },
        () -> {
          p.abandon();
          idle.close();
        });
  }

  /**
   * The one line for a process that lacks what raw VRRP sockets and address changes need, naming
   * the first instance; checked before any socket is opened, so the operator reads which capability
   * is missing instead of a socket's EPERM.
   */
  private static Optional<String> lackingCapabilities(Config c, String advice) {
    List<String> missing = Capabilities.missingForVrrp();
    if (missing.isEmpty()) {
      return Optional.empty();
    }
    VrrpInstance first = c.vrrp().instances().get(0);
    return Optional.of(
        first.location()
            + ": vrrp_instance "
            + first.name()
            + ": VRRP needs "
            + String.join(" and ", missing)
            + ", which this fairway run does not have"
            + advice);
  }

  private static void applyQuietly(VrrpSpeaker.Prepared p) {
    try {
      p.apply();
    } catch (IOException e) {
      LOG.error("VRRP: {}", e.getMessage());
    }
  }

  private Step step(Config next, Runnable apply, Runnable abandon) {
    return new Step() {
      @Override
      public void apply() {
        apply.run();
        config = next;
      }

      @Override
      public void abandon() {
        abandon.run();
      }

      @Override
      public Optional<Config> config() {
        return Optional.of(next);
      }
    };
  }

  /** Logs a refusal and puts it on the event stream; the caller throws it. */
  Refused refuse(String message) {
    String oneLine = String.join("; ", message.lines().toList());
    LOG.error("reload refused, still running the previous configuration: {}", oneLine);
    if (events != null) {
      events.publish(EventKind.RELOAD_REFUSED, null, null, oneLine);
    }
    return new Refused(oneLine);
  }

  /**
   * The VRRP-only mode: the speaker, and the same admin listener as {@code fairway run} (runtime
   * API, token, {@code /metrics} with VRRP's, events, status page, {@code /api/v1/vrrp}) over a
   * daemon with no virtual servers on an in-memory table, so everything that applies answers as it
   * does with virtual servers, and what needs one answers a clear error (there is none to name).
   * SIGHUP and {@code POST /api/v1/reload} reload VRRP by difference.
   */
  int runAlone(
      Path file,
      io.fairway.daemon.Loader loader,
      @Nullable InetSocketAddress adminAddress,
      io.fairway.daemon.admin.AdminHosts hosts,
      String admin,
      @Nullable Path adminTokenFile,
      PrintWriter err,
      SyncRun sync)
      throws InterruptedException {
    io.fairway.daemon.Daemon daemon =
        new io.fairway.daemon.Daemon(
            file,
            loader,
            new io.fairway.table.MemoryTable(),
            io.fairway.check.engine.CheckEngine::builder,
            java.time.Duration.ZERO,
            java.time.Clock.systemUTC());
    events(daemon.events());
    // Signals are caught from the start, as in a run with virtual servers: a SIGTERM while the
    // admin listener starts is a clean stop (the sync daemons stopped, the masters handing over),
    // not the JVM's exit 143 with both left behind; a SIGHUP then waits until this serves.
    CountDownLatch stop = new CountDownLatch(1);
    Signals.on("TERM", stop::countDown);
    Signals.on("INT", stop::countDown);
    io.fairway.daemon.systemd.SystemdNotifier systemd =
        io.fairway.daemon.systemd.SystemdNotifier.fromEnvironment();
    DeferredSignal hup = new DeferredSignal(() -> reloadAlone(systemd, sync));
    Signals.on("HUP", hup::signal);
    try {
      sync.start();
      start();
    } catch (IOException e) {
      Objects.requireNonNull(e.getMessage(), SAYS_WHY)
          .lines()
          .forEach(l -> err.println("fairway: " + l));
      sync.close();
      return 1;
    }
    AdminListener server = null;
    if (adminAddress != null) {
      server = adminAlone(daemon, adminAddress, hosts, admin, adminTokenFile, err, systemd, sync);
      if (server == null) {
        return 1;
      }
    }
    hup.open();
    // Under Type=notify systemd waits for READY=1 here too, though there is no table.
    systemd.ready("running " + config.vrrp().instances().size() + " VRRP instances");
    stop.await();
    hup.close();
    systemd.stopping("stopping: VRRP masters hand over");
    if (server != null) {
      server.close();
      daemon.stop();
    }
    sync.close(); // as keepalived: the sync daemon stops before the masters hand over
    close();
    return 0;
  }

  /**
   * The VRRP-only mode's admin listener over its empty daemon.
   *
   * @return null when it cannot start (said on {@code err}; what started is stopped)
   */
  private @Nullable AdminListener adminAlone(
      io.fairway.daemon.Daemon daemon,
      InetSocketAddress adminAddress,
      io.fairway.daemon.admin.AdminHosts hosts,
      String admin,
      @Nullable Path adminTokenFile,
      PrintWriter err,
      io.fairway.daemon.systemd.SystemdNotifier systemd,
      SyncRun sync) {
    try {
      daemon.start();
      PrometheusRegistry registry = new PrometheusRegistry();
      VrrpMetrics.register(registry, this::snapshot);
      return AdminListener.start(
          adminAddress,
          hosts,
          adminTokenFile,
          null,
          daemon,
          registry,
          () -> (status() + sync.status()).stripLeading(),
          () -> reloadAlone(systemd, sync),
          routes -> new VrrpRoutes(routes, this::snapshot, sync::snapshot));
    } catch (io.fairway.daemon.Loader.LoadException | io.fairway.table.TableException e) {
      err.println("fairway: " + e.getMessage());
      sync.close();
      close();
      return null;
    } catch (IOException | IllegalArgumentException e) {
      err.println("fairway: --admin " + admin + ": " + e.getMessage());
      daemon.stop();
      sync.close();
      close();
      return null;
    }
  }

  /** A VRRP-only run's reload: null when applied, else the one-line refusal. */
  private synchronized @Nullable String reloadAlone(
      io.fairway.daemon.systemd.SystemdNotifier systemd, SyncRun sync) {
    systemd.reloading("reloading " + file);
    try {
      Step step = prepare(true);
      SyncRun.Step syncStep = prepareSync(step, sync);
      step.apply();
      String result = withSync(null, syncStep.apply());
      if (result == null) {
        LOG.info("reloaded {} (VRRP only)", file);
      } else {
        LOG.warn("reload of {} (VRRP only) {}", file, result);
      }
      if (events != null) {
        events.publish(
            EventKind.RELOAD_OK,
            null,
            null,
            "reloaded " + file + " (VRRP only" + (result == null ? "" : "; " + result) + ")");
      }
      systemd.ready("running " + config.vrrp().instances().size() + " VRRP instances");
      return result;
    } catch (Refused e) {
      // logged and on the event stream
      systemd.ready("reload refused, still running the previous configuration: " + e.getMessage());
      return e.getMessage();
    }
  }

  @Override
  public void close() {
    VrrpSpeaker s = speaker;
    if (s != null) {
      s.close();
      speaker = null;
    }
  }
}

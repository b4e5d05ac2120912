package io.fairway.cli;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.model.Config;
import io.fairway.config.model.TrackFile;
import io.fairway.daemon.VrrpStatusFormat;
import io.fairway.vrrp.VrrpSpeaker;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * The VRRP side of {@code fairway run}: starts a {@link VrrpSpeaker} for the file's
 * vrrp_instance blocks next to the virtual servers, or alone for a file that has only VRRP.
 */
final class VrrpRun implements AutoCloseable {
  private final Config config;
  private final java.util.List<VrrpSpeaker.StateListener> listeners = new java.util.ArrayList<>();
  private VrrpSpeaker speaker;

  private VrrpRun(Config config) {
    this.config = config;
  }

  /** The file was loaded once already, so it parses. */
  static VrrpRun of(Path file) {
    return new VrrpRun(KeepalivedConfig.parse(file).config());
  }

  /** Tells {@code l} of every instance's state changes (add before {@link #start}). */
  void onStateChange(VrrpSpeaker.StateListener l) {
    listeners.add(l);
  }

  /** A file with VRRP instances and no virtual servers. */
  boolean only() {
    return config.vrrp().isPresent() && config.virtualServers().isEmpty();
  }

  void start() throws IOException {
    if (!config.vrrp().isPresent()) {
      return;
    }
    VrrpSpeaker s = new VrrpSpeaker(config.vrrp(), config.globalDefs().scriptUser(), null);
    Map<String, Path> files = new HashMap<>();
    for (TrackFile t : config.trackFiles()) {
      files.put(t.name(), Path.of(t.file()));
    }
    s.trackFiles(files);
    listeners.forEach(s::onStateChange);
    try {
      s.start();
    } catch (IOException e) {
      s.close();
      throw e;
    }
    speaker = s;
  }

  String status() {
    return speaker == null ? "" : "\n" + VrrpStatusFormat.render(speaker.status());
  }

  Optional<VrrpSpeaker> speaker() {
    return Optional.ofNullable(speaker);
  }

  /**
   * The VRRP-only mode: the speaker, and the same admin listener as {@code fairway run} (runtime
   * API, token, {@code /metrics}, events, status page) over a daemon with no virtual servers on
   * an in-memory table, so everything that applies answers as it does with virtual servers, and
   * what needs one answers a clear error (there is none to name).
   */
  int runAlone(Path file, io.fairway.daemon.Loader loader, InetSocketAddress adminAddress, String admin,
      Path adminTokenFile, PrintWriter err, SyncRun sync) throws InterruptedException {
    try {
      sync.start();
      start();
    } catch (IOException e) {
      e.getMessage().lines().forEach(l -> err.println("fairway: " + l));
      sync.close();
      return 1;
    }
    io.fairway.daemon.Daemon daemon = new io.fairway.daemon.Daemon(file, loader, new io.fairway.table.MemoryTable(),
        io.fairway.check.engine.CheckEngine::builder, java.time.Duration.ZERO, java.time.Clock.systemUTC());
    AdminListener server = null;
    if (adminAddress != null) {
      try {
        daemon.start();
        server = AdminListener.start(adminAddress, adminTokenFile, null, daemon,
            new io.prometheus.metrics.model.registry.PrometheusRegistry(),
            () -> (status() + sync.status()).stripLeading(), () -> VRRP_RELOAD);
      } catch (io.fairway.daemon.Loader.LoadException | io.fairway.table.TableException e) {
        err.println("fairway: " + e.getMessage());
        sync.close();
        close();
        return 1;
      } catch (IOException | IllegalArgumentException e) {
        err.println("fairway: --admin " + admin + ": " + e.getMessage());
        daemon.stop();
        sync.close();
        close();
        return 1;
      }
    }
    CountDownLatch stop = new CountDownLatch(1);
    Signals.on("HUP", () -> org.slf4j.LoggerFactory.getLogger(VrrpRun.class).warn("reload: {}", VRRP_RELOAD));
    Signals.on("TERM", stop::countDown);
    Signals.on("INT", stop::countDown);
    // Under Type=notify systemd waits for READY=1 here too, though there is no table.
    io.fairway.daemon.systemd.SystemdNotifier systemd =
        io.fairway.daemon.systemd.SystemdNotifier.fromEnvironment();
    systemd.ready("running " + config.vrrp().instances().size() + " VRRP instances");
    stop.await();
    systemd.stopping("stopping: VRRP masters hand over");
    if (server != null) {
      server.close();
      daemon.stop();
    }
    sync.close(); // as keepalived: the sync daemon stops before the masters hand over
    close();
    return 0;
  }

  /** What a reload answers in the VRRP-only mode (SIGHUP and {@code POST /api/v1/reload}). */
  static final String VRRP_RELOAD = "VRRP changes take effect at the next start; nothing reloaded";

  @Override
  public void close() {
    if (speaker != null) {
      speaker.close();
      speaker = null;
    }
  }
}

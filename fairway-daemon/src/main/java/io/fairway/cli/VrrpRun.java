package io.fairway.cli;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.model.Config;
import io.fairway.config.model.TrackFile;
import io.fairway.daemon.AdminServer;
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

  int runAlone(InetSocketAddress adminAddress, String admin, PrintWriter err, SyncRun sync)
      throws InterruptedException {
    try {
      sync.start();
      start();
    } catch (IOException e) {
      e.getMessage().lines().forEach(l -> err.println("fairway: " + l));
      sync.close();
      return 1;
    }
    AdminServer server = null;
    if (adminAddress != null) {
      try {
        server = AdminServer.start(adminAddress, () -> (status() + sync.status()).stripLeading());
      } catch (IOException | IllegalArgumentException e) {
        err.println("fairway: --admin " + admin + ": " + e.getMessage());
        sync.close();
        close();
        return 1;
      }
    }
    CountDownLatch stop = new CountDownLatch(1);
    Signals.on("HUP", () -> org.slf4j.LoggerFactory.getLogger(VrrpRun.class)
        .warn("reload: VRRP changes take effect at the next start; nothing reloaded"));
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
    }
    sync.close(); // as keepalived: the sync daemon stops before the masters hand over
    close();
    return 0;
  }

  @Override
  public void close() {
    if (speaker != null) {
      speaker.close();
      speaker = null;
    }
  }
}

package io.fairway.cli;

import io.fairway.config.ConfigException;
import io.fairway.config.KeepalivedConfig;
import io.fairway.config.model.Config;
import io.fairway.config.model.TrackFile;
import io.fairway.daemon.AdminServer;
import io.fairway.daemon.VrrpStatusFormat;
import io.fairway.daemon.admin.EventHub;
import io.fairway.daemon.admin.EventKind;
import io.fairway.daemon.vrrp.VrrpEvents;
import io.fairway.daemon.vrrp.VrrpMetrics;
import io.fairway.daemon.vrrp.VrrpOnlyRoutes;
import io.fairway.daemon.vrrp.VrrpRoutes;
import io.fairway.vrrp.VrrpSpeaker;
import io.fairway.vrrp.view.VrrpSnapshot;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The VRRP side of {@code fairway run}: starts a {@link VrrpSpeaker} for the file's
 * vrrp_instance blocks next to the virtual servers, or alone for a file that has only VRRP, and
 * reloads it by difference at SIGHUP ({@link #prepare}).
 */
final class VrrpRun implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(VrrpRun.class);

  private final Path file;
  private Config config;
  private volatile VrrpSpeaker speaker;
  private EventHub events;

  private VrrpRun(Path file, Config config) {
    this.file = file;
    this.config = config;
  }

  /** The file was loaded once already, so it parses. */
  static VrrpRun of(Path file) {
    return new VrrpRun(file, KeepalivedConfig.parse(file).config());
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

  private VrrpSpeaker startSpeaker(Config c) throws IOException {
    if (!c.vrrp().isPresent()) {
      return null;
    }
    VrrpSpeaker s = new VrrpSpeaker(c.vrrp(), c.globalDefs().scriptUser(), null);
    s.trackFiles(trackFiles(c));
    if (events != null) {
      s.onTransition(new VrrpEvents(events));
    }
    try {
      s.start();
    } catch (IOException e) {
      s.close();
      throw e;
    }
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
    return s == null ? "" : "\n" + VrrpStatusFormat.render(s.status());
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
  }

  private static final Step NOTHING = new Step() {
    @Override
    public void apply() {}

    @Override
    public void abandon() {}
  };

  /** The VRRP half of a reload does not fit; nothing changed. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String oneLine) {
      super(oneLine, null, false, false);
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
      throw refuse(file + ": virtual_server blocks need a restart: this fairway run started with"
          + " VRRP only (no table)");
    }
    VrrpSpeaker running = speaker;
    if (running == null && !next.vrrp().isPresent()) {
      return step(next, () -> {}, () -> {});
    }
    if (running == null) {
      try {
        VrrpSpeaker.checkSystem(next.vrrp());
      } catch (IOException e) {
        throw refuse(e.getMessage());
      }
      return step(next, () -> {
        try {
          speaker = startSpeaker(next);
          LOG.info("VRRP: started {} instances by the reload", next.vrrp().instances().size());
        } catch (IOException e) {
          LOG.error("VRRP: the reload's instances cannot start: {}",
              String.join("; ", e.getMessage().lines().toList()));
        }
      }, () -> {});
    }
    if (!next.vrrp().isPresent()) {
      return step(next, () -> {
        LOG.info("VRRP: every vrrp_instance removed by the reload; masters hand over");
        speaker = null;
        running.close();
      }, () -> {});
    }
    VrrpSpeaker.Prepared p;
    try {
      p = running.prepare(next.vrrp(), trackFiles(next));
    } catch (IOException e) {
      throw refuse(e.getMessage());
    }
    return step(next, () -> {
      try {
        p.apply();
      } catch (IOException e) {
        LOG.error("VRRP: {}", e.getMessage());
      }
    }, p::abandon);
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
    };
  }

  private Refused refuse(String message) {
    String oneLine = String.join("; ", message.lines().toList());
    LOG.error("reload refused, still running the previous configuration: {}", oneLine);
    if (events != null) {
      events.publish(EventKind.RELOAD_REFUSED, null, null, oneLine);
    }
    return new Refused(oneLine);
  }

  int runAlone(InetSocketAddress adminAddress, String admin, PrintWriter err)
      throws InterruptedException {
    EventHub hub = new EventHub(Clock.systemUTC());
    events(hub);
    try {
      start();
    } catch (IOException e) {
      e.getMessage().lines().forEach(l -> err.println("fairway: " + l));
      return 1;
    }
    AdminServer server = null;
    if (adminAddress != null) {
      PrometheusRegistry registry = new PrometheusRegistry();
      io.prometheus.metrics.instrumentation.jvm.JvmMetrics.builder().register(registry);
      VrrpMetrics.register(registry, this::snapshot);
      try {
        server = AdminServer.start(adminAddress, new VrrpRoutes(
            new VrrpOnlyRoutes(() -> status().stripLeading(), registry), this::snapshot), hub);
      } catch (IOException | IllegalArgumentException e) {
        err.println("fairway: --admin " + admin + ": " + e.getMessage());
        close();
        return 1;
      }
    }
    CountDownLatch stop = new CountDownLatch(1);
    // Under Type=notify systemd waits for READY=1 here too, though there is no table.
    io.fairway.daemon.systemd.SystemdNotifier systemd =
        io.fairway.daemon.systemd.SystemdNotifier.fromEnvironment();
    Signals.on("HUP", () -> {
      systemd.reloading("reloading " + file);
      try {
        prepare(true).apply();
        systemd.ready("running " + config.vrrp().instances().size() + " VRRP instances");
      } catch (Refused e) {
        // logged and on the event stream
        systemd.ready("reload refused, still running the previous configuration: "
            + e.getMessage());
      }
    });
    Signals.on("TERM", stop::countDown);
    Signals.on("INT", stop::countDown);
    systemd.ready("running " + config.vrrp().instances().size() + " VRRP instances");
    stop.await();
    systemd.stopping("stopping: VRRP masters hand over");
    if (server != null) {
      server.close();
    }
    close();
    return 0;
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

package io.fairway.cli;

import com.sun.net.httpserver.HttpServer;
import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.daemon.Daemon;
import io.fairway.daemon.KeepalivedLoader;
import io.fairway.daemon.Loader;
import io.fairway.daemon.admin.CheckMetrics;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.plane.ProxyTable;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code fairway demo}: the quick start. Starts a few demo HTTP backends on loopback, writes a
 * keepalived.conf with a shard director and health checks in front of them, and runs it through the
 * ordinary daemon (config, checks, apply) on the userspace data plane — no root, no kernel IPVS.
 * Typed commands stop and start backends so a newcomer can watch verdicts change the table.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Start a demo: backends on loopback behind a virtual server, no root needed.",
      "A shard director, health checks and Fairway's userspace proxy; prints what to try."
    })
public final class DemoCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  /** Typed commands come from the standard input {@link Main} was given. */
  @ParentCommand Main main;

  @Option(
      names = "--port",
      defaultValue = "8080",
      paramLabel = "PORT",
      description =
          "loopback port of the virtual server (default ${DEFAULT-VALUE}; 0 = any free port)")
  int port;

  @Option(
      names = "--backends",
      defaultValue = "3",
      paramLabel = "N",
      description = "number of demo backends, 1 to 9 (default ${DEFAULT-VALUE})")
  int backends;

  @Option(
      names = "--duration",
      defaultValue = "0",
      paramLabel = "SECONDS",
      description = "stop after SECONDS (default: run until Ctrl-C or 'quit')")
  long durationSeconds;

  @Option(
      names = "--admin",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:0",
      description =
          "loopback address of the admin listener: status page, API, /metrics, events (default:"
              + " a free port, printed)")
  String admin;

  @Option(
      names = "--admin-host",
      paramLabel = "NAME",
      description =
          "a host name the admin listener answers to besides its address and localhost (repeatable)")
  List<String> adminHosts = new ArrayList<>();

  /** How soon a typed command is seen, and how soon the reader notices the demo stopped. */
  private static final Duration COMMAND_POLL = Duration.ofMillis(100);

  private final List<DemoBackend> demoBackends = new ArrayList<>();

  /** Why the options' values are set once the demo starts: {@link #checkOptions} ran first. */
  private static final String CHECKED = "checkOptions set it";

  /** Set by {@link #checkOptions}. */
  private @Nullable InetSocketAddress adminAddress;

  private io.fairway.daemon.admin.@Nullable AdminHosts hosts;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Integer usage = checkOptions(err);
    if (usage != null) {
      return usage;
    }
    int vip = port == 0 ? freePort() : port;
    Path dir = Files.createTempDirectory("fairway-demo-");
    Path conf = dir.resolve("keepalived.conf");
    Running r = new Running(dir, conf);
    try {
      for (int i = 1; i <= backends; i++) {
        demoBackends.add(new DemoBackend("backend-" + i));
      }
      Files.writeString(conf, config(vip));
      if (!r.start(err)) {
        return 1;
      }
      printWhatToTry(out, vip, conf, Objects.requireNonNull(r.adminServer, "it started").address());
      r.signals.add(Signals.on("INT", r.stop::countDown));
      r.signals.add(Signals.on("TERM", r.stop::countDown));
      Thread reader = new Thread(() -> readCommands(main.in(), out, r.stop), "demo-input");
      r.reader = reader;
      reader.setDaemon(true);
      reader.start();
      if (durationSeconds > 0) {
        r.stop.await(durationSeconds, TimeUnit.SECONDS);
      } else {
        r.stop.await();
      }
      out.println("demo: stopping");
      return 0;
    } finally {
      r.close();
    }
  }

  /**
   * The options picocli does not check itself; sets {@link #adminAddress} and {@link #hosts}.
   *
   * @return null when they are good, else the exit code (what is wrong is on {@code err})
   */
  private @Nullable Integer checkOptions(PrintWriter err) {
    if (backends < 1 || backends > 9) {
      err.println("fairway: --backends must be 1 to 9, got " + backends);
      return Main.EXIT_USAGE;
    }
    if (port < 0 || port > 65535) {
      err.println("fairway: --port must be 0 to 65535, got " + port);
      return Main.EXIT_USAGE;
    }
    try {
      adminAddress = StatusCommand.parseAddress(admin);
    } catch (IllegalArgumentException e) {
      err.println("fairway: --admin: " + e.getMessage());
      return Main.EXIT_USAGE;
    }
    try {
      hosts = io.fairway.daemon.admin.AdminHosts.of(adminHosts);
    } catch (IllegalArgumentException e) {
      err.println("fairway: --admin-host: " + e.getMessage());
      return Main.EXIT_USAGE;
    }
    return null;
  }

  /** What a running demo holds, released in order however the demo ends. */
  private final class Running {
    final Path dir;
    final Path conf;
    final List<Signals.Restore> signals = new ArrayList<>();
    final CountDownLatch stop = new CountDownLatch(1);
    // Null until start makes each; close releases what there is.
    @Nullable ProxyTable table;
    @Nullable Daemon daemon;
    @Nullable AdminListener adminServer;
    @Nullable Thread reader;

    Running(Path dir, Path conf) {
      this.dir = dir;
      this.conf = conf;
    }

    /**
     * Starts the table, the daemon and the admin listener.
     *
     * @return whether all started (what failed is on {@code err})
     */
    boolean start(PrintWriter err) throws IOException {
      // The daemon hands the table each plan it runs (ProxyTable is a PlanTarget).
      table = new ProxyTable(ProxyOptions.builder().ioThreads(2).build(), null);
      // The same admin listener as fairway run's: the checks' metrics are wired into the engine
      // before it exists.
      PrometheusRegistry registry = new PrometheusRegistry();
      CheckMetrics checkMetrics = new CheckMetrics(registry);
      Daemon d =
          new Daemon(
              conf,
              new KeepalivedLoader(true, CheckSpecs::from),
              table,
              () -> CheckEngine.builder().observer(checkMetrics),
              Duration.ZERO,
              Clock.systemUTC());
      daemon = d;
      try {
        d.start();
      } catch (Loader.LoadException | io.fairway.table.TableException e) {
        err.println("fairway: demo: " + e.getMessage());
        return false;
      }
      try {
        adminServer =
            AdminListener.start(
                Objects.requireNonNull(adminAddress, CHECKED),
                Objects.requireNonNull(hosts, CHECKED),
                null,
                null,
                d,
                registry,
                d::status,
                d::reload,
                UnaryOperator.identity());
      } catch (IOException | IllegalArgumentException e) {
        err.println("fairway: demo: --admin " + admin + ": " + e.getMessage());
        return false;
      }
      return true;
    }

    void close() throws IOException, InterruptedException, io.fairway.table.TableException {
      stop.countDown(); // --duration ended it, or an error: tells the reader too
      signals.forEach(Signals.Restore::close);
      if (adminServer != null) {
        adminServer.close();
      }
      if (daemon != null) {
        daemon.stop();
      }
      if (table != null) {
        table.close();
      }
      for (DemoBackend b : demoBackends) {
        b.stop();
      }
      Files.deleteIfExists(conf);
      Files.deleteIfExists(dir);
      if (reader != null) {
        reader.join(2 * COMMAND_POLL.toMillis() + 1000);
      }
    }
  }

  private String config(int vip) {
    StringBuilder c = new StringBuilder();
    c.append(
            "# Generated by 'fairway demo'. An ordinary keepalived.conf: the same file runs on the\n")
        .append("# kernel's IPVS with lb_kind NAT and a kernel scheduler.\n")
        .append("virtual_server 127.0.0.1 ")
        .append(vip)
        .append(" {\n")
        .append("    name demo\n")
        .append("    delay_loop 1\n")
        .append("    lb_algo shard          # Varnish's consistent hashing director\n")
        .append("    lb_kind HTTP           # Fairway's HTTP reverse proxy\n")
        .append("    shard {\n")
        .append("        by URL             # the same URL always lands on the same backend\n")
        .append("    }\n");
    for (DemoBackend b : demoBackends) {
      c.append("    real_server 127.0.0.1 ")
          .append(b.port)
          .append(" {\n")
          .append("        name ")
          .append(b.name)
          .append('\n')
          .append("        weight 1\n")
          .append("        TCP_CHECK {\n")
          .append("            connect_timeout 1\n")
          .append("        }\n")
          .append("    }\n");
    }
    return c.append("}\n").toString();
  }

  private void printWhatToTry(PrintWriter out, int vip, Path conf, InetSocketAddress adminAddress) {
    String url = "http://127.0.0.1:" + vip;
    out.println();
    out.println(
        "Fairway demo is running: virtual server "
            + url
            + " -> "
            + demoBackends.size()
            + " backends (shard director by URL, TCP health checks every second).");
    out.println("Configuration: " + conf);
    String adminUrl = "http://" + adminAddress.getHostString() + ":" + adminAddress.getPort() + "/";
    out.println(
        "Status page: "
            + adminUrl
            + "  (live; JSON at "
            + adminUrl
            + "api/v1/services, Prometheus at "
            + adminUrl
            + "metrics)");
    out.println();
    out.println("Try:");
    out.println(
        "  curl " + url + "/some/page        # the same URL always answers from the same backend");
    out.println(
        "  for i in 1 2 3 4 5 6; do curl -s "
            + url
            + "/item/$i; done   # URLs spread over the backends");
    out.println(
        "  stop 1        (type it here) stop backend-1; within ~2 s its health check fails and it leaves the table");
    out.println("  start 1       (type it here) bring it back; its URLs return to it");
    out.println(
        "  ./fairway status --admin "
            + adminAddress.getHostString()
            + ":"
            + adminAddress.getPort()
            + "     # verdicts and the table as the daemon sees them");
    out.println(
        "  seq 1 1000 | sed 's#^#/item/#' | ./fairway pick -f "
            + conf
            + " --vs demo --stats --down backend-1");
    out.println("                # what-if: which share of URLs would move if backend-1 went down");
    out.println("  quit          (or Ctrl-C) stop the demo");
    out.println();
    out.flush();
  }

  /**
   * Reads typed commands until the demo stops. It reads only what is already there and otherwise
   * waits on {@code stop}: a thread blocked in {@code read} cannot be woken in Java, and one left
   * blocked on the input outlives the demo — in a test JVM it even holds the lock of the stdin
   * Maven's fork uses to hear the build say goodbye, holding the fork up for 30 s.
   */
  private void readCommands(InputStream input, PrintWriter out, CountDownLatch stop) {
    BufferedReader in = new BufferedReader(new InputStreamReader(input, StandardCharsets.UTF_8));
    try {
      while (true) {
        if (!in.ready()) {
          if (stop.await(COMMAND_POLL.toMillis(), TimeUnit.MILLISECONDS)) {
            return;
          }
          continue;
        }
        String line = in.readLine();
        if (line == null) {
          return; // end of input: keep running until a signal or --duration
        }
        if (!command(line, out)) {
          stop.countDown();
          return;
        }
      }
    } catch (IOException e) {
      // input closed: keep running until a signal or --duration
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Carries out one typed command; false for 'quit'. */
  private boolean command(String line, PrintWriter out) {
    String[] w = line.trim().split("\\s+");
    if (w[0].isEmpty()) {
      return true;
    }
    if (w[0].equals("quit") || w[0].equals("exit")) {
      return false;
    }
    int n;
    try {
      n = w.length == 2 ? Integer.parseInt(w[1]) : -1;
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 1 || n > demoBackends.size() || !(w[0].equals("stop") || w[0].equals("start"))) {
      out.println(
          "demo: commands are 'stop N', 'start N' (N = 1.." + demoBackends.size() + ") and 'quit'");
    } else if (w[0].equals("stop")) {
      demoBackends.get(n - 1).stop();
      out.println("demo: backend-" + n + " stopped; watch for its health check to fail");
    } else {
      demoBackends.get(n - 1).start();
      out.println("demo: backend-" + n + " started; watch for its health check to succeed");
    }
    out.flush();
    return true;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** A tiny HTTP server on loopback that says who it is; stop and start it to fail its check. */
  static final class DemoBackend {
    final String name;
    final int port;
    private @Nullable HttpServer server;

    DemoBackend(String name) throws IOException {
      this.name = name;
      this.port = freePort();
      start();
    }

    synchronized void start() {
      if (server != null) {
        return;
      }
      try {
        HttpServer s =
            HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        s.createContext(
            "/",
            ex -> {
              byte[] body =
                  ("hello from "
                          + name
                          + " (127.0.0.1:"
                          + port
                          + ") for "
                          + ex.getRequestURI()
                          + "\n")
                      .getBytes(StandardCharsets.UTF_8);
              ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
              ex.sendResponseHeaders(200, body.length);
              try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
              }
            });
        s.start();
        server = s;
      } catch (IOException e) {
        throw new IllegalStateException(
            name + ": cannot listen on 127.0.0.1:" + port + ": " + e.getMessage(), e);
      }
    }

    synchronized void stop() {
      if (server != null) {
        server.stop(0);
        server = null;
      }
    }
  }
}

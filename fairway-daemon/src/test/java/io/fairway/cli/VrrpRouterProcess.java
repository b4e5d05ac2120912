package io.fairway.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** One VRRP router of a test, keepalived 2.2.7 or {@code fairway run}, inside a namespace. */
final class VrrpRouterProcess implements AutoCloseable {
  enum Kind {
    FAIRWAY,
    KEEPALIVED
  }

  private static final java.util.concurrent.atomic.AtomicInteger STARTS =
      new java.util.concurrent.atomic.AtomicInteger();

  final Kind kind;
  final String ns;
  final Path log;
  private final Process process;

  /** Where this start's lines begin in {@link #log}, which every start in the namespace appends. */
  private final long logStart;

  private static final java.util.regex.Pattern IN_A_STATE =
      java.util.regex.Pattern.compile("Entering (BACKUP|MASTER|FAULT) STATE");

  private VrrpRouterProcess(Kind kind, String ns, Path log, long logStart, Process process) {
    this.kind = kind;
    this.ns = ns;
    this.log = log;
    this.logStart = logStart;
    this.process = process;
  }

  static VrrpRouterProcess start(
      Kind kind, String ns, Path dir, String config, String... fairwayArgs) throws IOException {
    return start(kind, ns, dir, config, List.of(), fairwayArgs);
  }

  /**
   * @param prefix a command the router runs under inside the namespace (e.g. {@code setpriv
   *     --bounding-set -net_raw --}), or empty
   */
  static VrrpRouterProcess start(
      Kind kind, String ns, Path dir, String config, List<String> prefix, String... fairwayArgs)
      throws IOException {
    Path conf = dir.resolve(ns + ".conf");
    Files.writeString(conf, config);
    Path log = dir.resolve(ns + "-" + kind.name().toLowerCase(Locale.ROOT) + ".log");
    List<String> cmd;
    if (kind == Kind.KEEPALIVED) {
      // Fresh pid files per start: after a kill -9 keepalived may take a stale one for a
      // running daemon.
      int n = STARTS.incrementAndGet();
      cmd =
          List.of(
              "ip",
              "netns",
              "exec",
              ns,
              "keepalived",
              "-P",
              "-n",
              "-l",
              "-D",
              "-f",
              conf.toString(),
              "-p",
              dir.resolve(ns + "-" + n + ".pid").toString(),
              "-r",
              dir.resolve(ns + "-" + n + "-vrrp.pid").toString());
    } else {
      String cp =
          System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
      cmd = new java.util.ArrayList<>(List.of("ip", "netns", "exec", ns));
      cmd.addAll(prefix);
      cmd.addAll(
          List.of(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-Xmx128m",
              "-XX:+UseSerialGC",
              "-XX:TieredStopAtLevel=1",
              "-cp",
              cp,
              "io.fairway.cli.Main",
              "run",
              "-f",
              conf.toString()));
      cmd.addAll(List.of(fairwayArgs));
      if (!cmd.contains("--admin")) {
        cmd.addAll(List.of("--admin", "off"));
      }
    }
    long logStart = Files.exists(log) ? Files.size(log) : 0;
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new VrrpRouterProcess(kind, ns, log, logStart, p);
  }

  /**
   * A crash of the machine: every process of the router stopped and killed (no priority 0 advert),
   * and the virtual addresses it held gone with it, as they would be with the machine; a killed
   * process alone leaves them on the interface, which would look like both holding them.
   *
   * @return when the signals were sent (epoch ms, just before {@code kill -STOP} started)
   */
  long kill9() throws IOException, InterruptedException {
    // The processes are listed first, so the time returned is when the signals went, not when
    // the listing began (an `ip netns pids` takes tens of ms under load).
    List<String> pids = Netns.pids(ns);
    long at = System.currentTimeMillis();
    Netns.signal(pids, "KILL");
    process.waitFor(10, TimeUnit.SECONDS);
    Netns.sh("ip", "-n", ns, "-4", "addr", "flush", "dev", "eth0", "secondary");
    Netns.sh("ip", "-n", ns, "-6", "addr", "flush", "dev", "eth0", "scope", "global");
    return at;
  }

  /** SIGHUP: reload (after the test rewrote {@link #config}). */
  void hup() throws IOException {
    Netns.sh("kill", "-HUP", Long.toString(process.pid()));
  }

  /** The file this router runs ({@code ip netns exec} execs, so the pid is the router's). */
  Path config() {
    return log.resolveSibling(ns + ".conf");
  }

  /** SIGTERM: a clean stop, which sends priority 0. */
  void term() throws InterruptedException {
    process.destroy();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  boolean alive() {
    return process.isAlive();
  }

  int exitCode() {
    return process.exitValue();
  }

  /**
   * Whether this start has entered its first VRRP state: both keepalived and Fairway log "(VI_1)
   * Entering BACKUP STATE" (or MASTER, or FAULT) once the instance runs.
   */
  boolean inAState() {
    String text = logText();
    return IN_A_STATE.matcher(text.substring((int) Math.min(logStart, text.length()))).find();
  }

  String logText() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public void close() throws IOException {
    if (process.isAlive()) {
      try {
        kill9();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the caller's to see
      }
    }
  }
}

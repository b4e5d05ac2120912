package io.fairway.cli;

import io.fairway.testkit.ExternalPrograms;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two network namespaces ({@code fwv-XXXX-a}, {@code fwv-XXXX-b}) joined by a veth pair, each side
 * called eth0 with 10.99.0.1/24 and 10.99.0.2/24 (and IPv6 link-local addresses without duplicate
 * address detection), for VRRP tests that never touch the host's network. Removed on close, which
 * also ends every process still running inside.
 *
 * <p>Which addresses each side's eth0 holds is followed from the kernel's own notifications ({@code
 * ip -o monitor address}, one watcher process per namespace), so {@link #holds} costs no process
 * and a change is seen when it happens, not at the next poll: polling {@code ip addr} every 20 ms
 * from several tests at once was a few hundred processes a second on two cores.
 */
final class Netns implements AutoCloseable {
  /** The address watch of each namespace this class created and has not yet removed. */
  private static final Map<String, Watch> WATCHES = new ConcurrentHashMap<>();

  /** Called after every address change in any watched namespace. */
  private static final List<Runnable> LISTENERS = new CopyOnWriteArrayList<>();

  final String a;
  final String b;

  private Netns(String tag) {
    this("fwv-" + tag + "-a", "fwv-" + tag + "-b");
  }

  private Netns(String a, String b) {
    this.a = a;
    this.b = b;
  }

  /** Two namespaces made elsewhere ({@link BridgedNetns}), for {@link VrrpLab.Monitor}. */
  static Netns of(String a, String b) {
    return new Netns(a, b);
  }

  /**
   * Skips (or, under {@code CI=true}, fails) when this machine cannot create namespaces or has no
   * keepalived.
   */
  static void assumeAvailable() {
    String why = null;
    if (!Files.isExecutable(Path.of("/usr/sbin/keepalived"))) {
      why = "keepalived is not installed";
    } else if (!"root".equals(System.getProperty("user.name"))) {
      why = "network namespaces need root";
    } else if (!Files.isExecutable(Path.of("/usr/sbin/ip"))
        && !Files.isExecutable(Path.of("/usr/bin/ip"))
        && !Files.isExecutable(Path.of("/sbin/ip"))) {
      why = "iproute2 (ip) is not installed";
    }
    String missing = why;
    ExternalPrograms.requireThat(missing == null, () -> missing);
  }

  static Netns create() throws IOException {
    String tag = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xffff));
    Netns n = new Netns(tag);
    try {
      for (String ns : List.of(n.a, n.b)) {
        sh("ip", "netns", "add", ns);
      }
      sh("ip", "link", "add", "fwv" + tag + "a", "type", "veth", "peer", "name", "fwv" + tag + "b");
      sh("ip", "link", "set", "fwv" + tag + "a", "netns", n.a);
      sh("ip", "link", "set", "fwv" + tag + "b", "netns", n.b);
      String[][] sides = {
        {n.a, "fwv" + tag + "a", "10.99.0.1/24"}, {n.b, "fwv" + tag + "b", "10.99.0.2/24"}
      };
      for (String[] s : sides) {
        sh("ip", "-n", s[0], "link", "set", s[1], "name", "eth0");
        sh(
            "ip",
            "netns",
            "exec",
            s[0],
            "sysctl",
            "-qw",
            "net.ipv6.conf.all.accept_dad=0",
            "net.ipv6.conf.default.accept_dad=0",
            "net.ipv6.conf.eth0.accept_dad=0");
        Watch w = new Watch(s[0]);
        WATCHES.put(s[0], w);
        w.subscribed(s[0]);
        sh("ip", "-n", s[0], "addr", "add", s[2], "dev", "eth0");
        sh("ip", "-n", s[0], "link", "set", "lo", "up");
        sh("ip", "-n", s[0], "link", "set", "eth0", "up");
      }
      // Each watch listened before the side's own address came: what it holds is the namespace's
      // state from here on.
      for (String[] s : sides) {
        String own = s[2].substring(0, s[2].indexOf('/'));
        Objects.requireNonNull(WATCHES.get(s[0]), "watched above").awaitHolds(own, 10_000);
      }
    } catch (IOException | RuntimeException e) {
      n.close();
      throw e;
    }
    return n;
  }

  /** The addresses on eth0 in {@code ns}, as {@code ip -o addr} prints them. */
  static String addresses(String ns) {
    try {
      return sh("ip", "-n", ns, "-o", "addr", "show", "dev", "eth0");
    } catch (IOException e) {
      return "";
    }
  }

  static boolean holds(String ns, String address) {
    Watch w = WATCHES.get(ns);
    return w != null ? w.holds(address) : addresses(ns).contains(" " + address + "/");
  }

  /** Runs {@code r} after every address change in a watched namespace, until removed. */
  static void listen(Runnable r) {
    LISTENERS.add(r);
  }

  static void unlisten(Runnable r) {
    LISTENERS.remove(r);
  }

  /**
   * The addresses on eth0 of one namespace, from {@code ip -o monitor address}: one line per
   * change, {@code "3: eth0 inet 10.99.0.100/24 ..."} or {@code "Deleted 3: eth0 ..."}.
   */
  private static final class Watch {
    private static final Pattern LINE =
        Pattern.compile("^(Deleted )?\\d+: (\\S+)\\s+inet6? ([^/\\s]+)/");
    private final Process process;
    private final Set<String> held = ConcurrentHashMap.newKeySet();

    Watch(String ns) throws IOException {
      process =
          new ProcessBuilder("ip", "-n", ns, "-o", "monitor", "address")
              .redirectErrorStream(true)
              .start();
      Thread reader = new Thread(this::read, "netns-watch-" + ns);
      reader.setDaemon(true);
      reader.start();
    }

    private void read() {
      try (BufferedReader in =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          Matcher m = LINE.matcher(line);
          if (!m.find() || !m.group(2).equals("eth0")) {
            continue;
          }
          if (m.group(1) == null) {
            held.add(m.group(3));
          } else {
            held.remove(m.group(3));
          }
          LISTENERS.forEach(Runnable::run);
        }
      } catch (IOException e) {
        // the watcher was ended
      }
    }

    boolean holds(String address) {
      return held.contains(address);
    }

    /**
     * Returns once the watcher receives the namespace's notifications: it may subscribe some time
     * after its process started, so a marker address is put on eth0 (and taken off again) until the
     * watcher reports it. Called while nothing else changes the namespace's addresses.
     */
    void subscribed(String ns) throws IOException {
      String marker = "10.99.0.254";
      long end = System.nanoTime() + 10_000_000_000L;
      while (!holds(marker)) {
        if (System.nanoTime() > end || !process.isAlive()) {
          throw new IOException("ip monitor address in " + ns + " reports nothing");
        }
        sh("ip", "-n", ns, "addr", "add", marker + "/32", "dev", "eth0");
        long seen = System.nanoTime() + 300_000_000L;
        while (!holds(marker) && System.nanoTime() < seen) {
          java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L);
        }
        if (!holds(marker)) {
          sh("ip", "-n", ns, "addr", "del", marker + "/32", "dev", "eth0");
        }
      }
      sh("ip", "-n", ns, "addr", "del", marker + "/32", "dev", "eth0");
      long gone = System.nanoTime() + 10_000_000_000L;
      while (holds(marker)) {
        if (System.nanoTime() > gone) {
          throw new IOException(
              "ip monitor address in " + ns + " did not report " + marker + " gone");
        }
        java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L);
      }
    }

    void awaitHolds(String address, long millis) throws IOException {
      long end = System.nanoTime() + millis * 1_000_000;
      while (!holds(address)) {
        if (System.nanoTime() > end || !process.isAlive()) {
          throw new IOException("ip monitor address did not report " + address);
        }
        java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L);
      }
    }

    long pid() {
      return process.pid();
    }

    void close() {
      process.destroyForcibly();
    }
  }

  static String sh(String... cmd) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + ": timed out");
      }
      String s = new String(out, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new IOException(String.join(" ", cmd) + ": exit " + p.exitValue() + ": " + s);
      }
      return s;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** Signals every process inside {@code ns} (SIGSTOP first for -9, so none can react). */
  static void killAll(String ns, String signal) throws IOException {
    signal(pids(ns), signal);
  }

  /** The processes inside {@code ns}, but for this class's own address watcher. */
  static List<String> pids(String ns) throws IOException {
    List<String> pids = new ArrayList<>();
    Watch watch = WATCHES.get(ns);
    String spared = watch == null ? "" : Long.toString(watch.pid());
    for (String l : sh("ip", "netns", "pids", ns).split("\\s+")) {
      if (!l.isBlank() && !l.trim().equals(spared)) {
        pids.add(l.trim());
      }
    }
    return pids;
  }

  /** Signals {@code pids} (SIGSTOP first for -9, so none can react). */
  static void signal(List<String> pids, String signal) throws IOException {
    if (pids.isEmpty()) {
      return;
    }
    if (signal.equals("KILL")) {
      List<String> stop = new ArrayList<>(List.of("kill", "-STOP"));
      stop.addAll(pids);
      run(stop);
    }
    List<String> kill = new ArrayList<>(List.of("kill", "-" + signal));
    kill.addAll(pids);
    run(kill);
  }

  private static void run(List<String> cmd) throws IOException {
    try {
      new ProcessBuilder(cmd).start().waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    for (String ns : List.of(a, b)) {
      Watch w = WATCHES.remove(ns);
      if (w != null) {
        w.close();
      }
      try {
        killAll(ns, "KILL");
      } catch (IOException e) {
        // the namespace may not exist
      }
      try {
        sh("ip", "netns", "del", ns);
      } catch (IOException e) {
        // already gone
      }
    }
  }
}

package io.fairway.cli;

import io.fairway.testkit.ExternalPrograms;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Two network namespaces ({@code fwv-XXXX-a}, {@code fwv-XXXX-b}) joined by a veth pair, each
 * side called eth0 with 10.99.0.1/24 and 10.99.0.2/24 (and IPv6 link-local addresses without
 * duplicate address detection), for VRRP tests that never touch the host's network. Removed on
 * close, which also ends every process still running inside.
 */
final class Netns implements AutoCloseable {
  final String a;
  final String b;

  private Netns(String tag) {
    this.a = "fwv-" + tag + "-a";
    this.b = "fwv-" + tag + "-b";
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
    } else if (!Files.isExecutable(Path.of("/usr/sbin/ip")) && !Files.isExecutable(
        Path.of("/usr/bin/ip")) && !Files.isExecutable(Path.of("/sbin/ip"))) {
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
      String[][] sides = {{n.a, "fwv" + tag + "a", "10.99.0.1/24"},
          {n.b, "fwv" + tag + "b", "10.99.0.2/24"}};
      for (String[] s : sides) {
        sh("ip", "-n", s[0], "link", "set", s[1], "name", "eth0");
        sh("ip", "netns", "exec", s[0], "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0",
            "net.ipv6.conf.default.accept_dad=0", "net.ipv6.conf.eth0.accept_dad=0");
        sh("ip", "-n", s[0], "addr", "add", s[2], "dev", "eth0");
        sh("ip", "-n", s[0], "link", "set", "lo", "up");
        sh("ip", "-n", s[0], "link", "set", "eth0", "up");
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
    return addresses(ns).contains(" " + address + "/");
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
    List<String> pids = new ArrayList<>();
    for (String l : sh("ip", "netns", "pids", ns).split("\\s+")) {
      if (!l.isBlank()) {
        pids.add(l.trim());
      }
    }
    if (pids.isEmpty()) {
      return;
    }
    if (signal.equals("KILL")) {
      List<String> stop = new ArrayList<>(List.of("kill", "-STOP"));
      stop.addAll(pids);
      try {
        new ProcessBuilder(stop).start().waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    List<String> kill = new ArrayList<>(List.of("kill", "-" + signal));
    kill.addAll(pids);
    try {
      new ProcessBuilder(kill).start().waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    for (String ns : List.of(a, b)) {
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

package io.fairway.director.sched;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A tiny harness that boots user-mode Linux with the host filesystem as its read-only root, lets
 * the kernel's IPVS schedule connections described by a plan, and returns the kernel's connection
 * table. Everything happens on the UML instance's own loopback.
 */
final class UmlIpvs {
  private UmlIpvs() {}

  static final Path LINUX_UML = Path.of("/usr/bin/linux.uml");

  /** Why the kernel cannot be booted here, or null when it can. */
  static String unavailableReason() {
    if (!Files.isExecutable(LINUX_UML)) return "linux.uml (user-mode-linux) is not installed";
    if (!Files.isDirectory(Path.of("/lib/modules"))) return "/lib/modules is missing";
    try (var s = Files.list(Path.of("/lib/modules"))) {
      if (s.noneMatch(p -> Files.isDirectory(p.resolve("kernel/net/netfilter/ipvs")))) {
        return "no IPVS modules for user-mode Linux under /lib/modules (see .ci/run)";
      }
    } catch (IOException e) {
      return e.toString();
    }
    if (!Files.isExecutable(Path.of("/usr/sbin/ipvsadm"))) return "ipvsadm is not installed";
    if (!Files.isExecutable(Path.of("/usr/bin/python3"))) return "/usr/bin/python3 is missing";
    return null;
  }

  /** One connection the kernel scheduled: client → (virtual) destination → real server. */
  record Conn(
      InetAddress client,
      int clientPort,
      InetAddress vaddr,
      int vport,
      InetAddress dest,
      int destPort) {}

  /**
   * Runs {@code plan} (ipvsadm commands) and then opens the given connections, lines of {@code MARK
   * SRC SPORT DST DPORT}; returns what /proc/net/ip_vs_conn says.
   */
  static List<Conn> run(Path dir, String plan, List<String> clients) throws Exception {
    Files.writeString(dir.resolve("plan.sh"), "set -x\n" + plan);
    Files.write(dir.resolve("clients.txt"), clients);
    copy("uml/sched-clients.py", dir.resolve("clients.py"));
    Path init = dir.resolve("init.sh");
    copy("uml/sched-init.sh", init);
    Files.setPosixFilePermissions(init, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    ProcessBuilder pb =
        new ProcessBuilder(
                LINUX_UML.toString(),
                "mem=512M",
                "rootfstype=hostfs",
                "rootflags=/",
                "ro",
                "init=" + init.toAbsolutePath(),
                "con=null",
                "con0=fd:0,fd:1",
                "FAIRWAY_OUT=" + dir.toAbsolutePath())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("console.log").toFile());
    // The harness's ptrace shim: UML 6.1 cannot start a process on AMX hosts without it.
    pb.environment().put("LD_PRELOAD", io.fairway.testkit.uml.Uml.xstateShim().toString());
    Process p = pb.start();
    if (!p.waitFor(180, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("user-mode Linux did not halt within 180 s; see " + dir);
    }
    if (!Files.exists(dir.resolve("done"))) {
      throw new AssertionError(
          "the UML run did not finish: "
              + read(dir.resolve("init.log"))
              + "\n"
              + read(dir.resolve("console.log")));
    }
    return parse(Files.readAllLines(dir.resolve("ip_vs_conn.txt")));
  }

  private static String read(Path p) throws IOException {
    return Files.exists(p) ? Files.readString(p) : "(no " + p.getFileName() + ")";
  }

  private static void copy(String resource, Path to) throws IOException {
    try (InputStream in = UmlIpvs.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) throw new IOException("missing test resource " + resource);
      Files.copy(in, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
  }

  static List<Conn> parse(List<String> lines) throws Exception {
    List<Conn> out = new ArrayList<>();
    for (String line : lines) {
      String[] f = line.trim().split("\\s+");
      if (f.length < 7 || !(f[0].equals("TCP") || f[0].equals("UDP"))) continue;
      out.add(
          new Conn(
              addr(f[1]),
              Integer.parseInt(f[2], 16),
              addr(f[3]),
              Integer.parseInt(f[4], 16),
              addr(f[5]),
              Integer.parseInt(f[6], 16)));
    }
    return out;
  }

  private static InetAddress addr(String s) throws Exception {
    if (s.indexOf(':') >= 0) return InetAddress.getByName(s);
    long v = Long.parseLong(s, 16);
    return InetAddress.getByAddress(
        new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
  }

  /** Index by client address:port and virtual address:port. */
  static Map<String, Conn> byFlow(List<Conn> conns) {
    Map<String, Conn> m = new HashMap<>();
    for (Conn c : conns) m.put(key(c.client(), c.clientPort(), c.vaddr(), c.vport()), c);
    return m;
  }

  static String key(InetAddress client, int cport, InetAddress vaddr, int vport) {
    return client.getHostAddress() + "|" + cport + "|" + vaddr.getHostAddress() + "|" + vport;
  }
}

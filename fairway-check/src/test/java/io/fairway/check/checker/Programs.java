package io.fairway.check.checker;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairway.testkit.ExternalPrograms;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;

/** Finding, starting and waiting for the real programs the checker tests talk to. */
final class Programs {
  private Programs() {}

  static Path require(String name) {
    for (String dir :
        List.of("/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/bin", "/usr/local/sbin")) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    ExternalPrograms.missing(name + " is not installed (CI installs it via .ci/run)");
    throw new IllegalStateException("not reached: missing() throws");
  }

  static void requireRoot(String why) {
    assumeTrue("root".equals(System.getProperty("user.name")), why + " needs root");
  }

  static int freePort() {
    return io.fairway.testkit.FreePorts.loopback();
  }

  /**
   * A loopback TCP port that refuses connections for as long as the returned socket is open: the
   * socket is bound to it without listening, so no other process can take the port meanwhile. (A
   * port found free and released at once can be bound by a parallel test run before the check
   * connects, and then "refused" is answered.)
   */
  static Socket refusingPort() throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0));
    return s;
  }

  /** A loopback port for a program's UDP socket (free for TCP too: DNS servers bind both). */
  static int freeUdpPort() {
    return io.fairway.testkit.FreePorts.loopback();
  }

  /**
   * A loopback port free for both UDP and TCP: a DNS server (dnsmasq) binds both on its port and
   * exits when either is taken.
   */
  static int freeUdpAndTcpPort() {
    return io.fairway.testkit.FreePorts.loopback();
  }

  static void awaitTcp(int port, Process p, Path log) throws Exception {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IllegalStateException("exited " + p.exitValue() + ": " + tail(log));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException e) {
        Thread.sleep(50);
      }
    }
    throw new IllegalStateException("did not listen on " + port + ": " + tail(log));
  }

  static String tail(Path log) {
    try {
      return log == null || !Files.exists(log) ? "" : Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  static Process start(Path log, String... cmd) throws IOException {
    return new ProcessBuilder(Arrays.asList(cmd))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  static void stop(Process p) throws InterruptedException {
    if (p != null) {
      p.destroy();
      if (!p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
      }
    }
  }

  /** A directory other users can traverse, so scripts run as nobody can execute what is in it. */
  static Path openDir(Path parent, String name) throws IOException {
    Path d = Files.createDirectories(parent.resolve(name));
    Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxrwxrwx"));
    for (Path p = parent;
        p != null && p.startsWith(System.getProperty("java.io.tmpdir"));
        p = p.getParent()) {
      try {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
      } catch (IOException ignored) {
        // not ours: fine, the system temp directory is world-traversable
      }
    }
    return d;
  }

  static Path script(Path dir, String name, String body) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }
}

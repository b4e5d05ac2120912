package io.fairway.proxy;

import io.fairway.testkit.ExternalPrograms;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A real nginx on a loopback port, answering with its name; skipped where nginx is missing. */
final class Nginx implements AutoCloseable {
  static final Path BINARY = Path.of("/usr/sbin/nginx");
  final String name;
  final int port;
  private final Process process;
  private final Path dir;

  /**
   * Skips the calling test without nginx, or fails it under CI=true (see {@link ExternalPrograms}).
   */
  static void require() {
    ExternalPrograms.require("nginx", BINARY.toString());
  }

  Nginx(String name) throws IOException, InterruptedException {
    this(name, "location / { default_type text/plain; return 200 '" + name + "'; }");
  }

  /** An nginx whose server block holds {@code locations} (e.g. a proxy_pass). */
  Nginx(String name, String locations) throws IOException, InterruptedException {
    this(name, "", locations);
  }

  /**
   * An nginx whose {@code listen} has {@code listenParameters} (e.g. {@code proxy_protocol}) and
   * whose server block holds {@code locations}.
   */
  Nginx(String name, String listenParameters, String locations)
      throws IOException, InterruptedException {
    this.name = name;
    this.port = io.fairway.testkit.FreePorts.loopback();
    this.dir = Files.createTempDirectory("fairway-nginx-");
    Files.createDirectories(dir.resolve("logs"));
    String conf =
        "worker_processes 1;\n"
            + "error_log "
            + dir
            + "/logs/error.log warn;\n"
            + "pid "
            + dir
            + "/nginx.pid;\n"
            + "events { worker_connections 1024; }\n"
            + "http {\n"
            + "  access_log off;\n"
            + "  client_body_temp_path "
            + dir
            + "/body; proxy_temp_path "
            + dir
            + "/proxy;\n"
            + "  fastcgi_temp_path "
            + dir
            + "/fcgi; uwsgi_temp_path "
            + dir
            + "/uwsgi; scgi_temp_path "
            + dir
            + "/scgi;\n"
            + "  keepalive_requests 100000;\n"
            + "  server {\n"
            + "    listen 127.0.0.1:"
            + port
            + (listenParameters.isEmpty() ? "" : " " + listenParameters)
            + ";\n"
            + "    "
            + locations
            + "\n"
            + "  }\n"
            + "}\n";
    Path file = dir.resolve("nginx.conf");
    Files.writeString(file, conf);
    process =
        new ProcessBuilder(
                BINARY.toString(), "-p", dir.toString(), "-c", file.toString(), "-g", "daemon off;")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("logs/stdout.log").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(address(), 200);
        return;
      } catch (IOException e) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          close();
          throw new IOException(
              "nginx did not start: " + Files.readString(dir.resolve("logs/stdout.log")));
        }
        Thread.sleep(20);
      }
    }
  }

  InetSocketAddress address() {
    return new InetSocketAddress(Fixtures.LO, port);
  }

  /**
   * Stops nginx at once: SIGKILL to the master, then to whatever still holds its files, and waits
   * until nothing does. Not by the master's descendants: the port accepts (the master listens)
   * before the worker is forked, so a listing can miss it, and a master that sees its worker die
   * forks a new one; either way a worker outlived its test, still listening (found as orphans after
   * a run of the suite).
   */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(5, TimeUnit.SECONDS);
    org.awaitility.Awaitility.await("nginx's worker gone")
        .atMost(java.time.Duration.ofSeconds(5))
        .pollInterval(java.time.Duration.ofMillis(5))
        .until(
            () -> {
              java.util.List<Long> left = holders();
              left.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
              return left.isEmpty();
            });
  }

  /** The processes other than this JVM that hold a file of this nginx's directory open. */
  java.util.List<Long> holders() throws IOException {
    java.util.List<Long> out = new java.util.ArrayList<>();
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        String pid = p.getFileName().toString();
        if (!pid.chars().allMatch(Character::isDigit)
            || Long.parseLong(pid) == ProcessHandle.current().pid()) {
          continue;
        }
        try (var fds = Files.list(p.resolve("fd"))) {
          for (Path fd : (Iterable<Path>) fds::iterator) {
            if (Files.readSymbolicLink(fd).startsWith(dir)) {
              out.add(Long.parseLong(pid));
              break;
            }
          }
        } catch (IOException gone) {
          // exited while listed, or not ours to read
        }
      }
    }
    return out;
  }

  @Override
  public void close() {
    try {
      kill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

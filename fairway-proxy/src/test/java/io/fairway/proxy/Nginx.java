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

  /** Stops nginx at once (SIGKILL to the master; the worker follows when its parent dies). */
  void kill() throws InterruptedException {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    process.waitFor(5, TimeUnit.SECONDS);
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

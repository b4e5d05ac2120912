package io.fairway.daemon.plan;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Loopback HTTP backends that answer every request with their name, and {@code /health} with 200,
 * or 503 for the ones named sick: what both Fairway's HTTP_GET checks and varnishd's probes read.
 */
final class Backends implements AutoCloseable {
  final List<String> names = new ArrayList<>();
  final List<Integer> ports = new ArrayList<>();
  private final List<HttpServer> servers = new ArrayList<>();
  private final ExecutorService pool =
      Executors.newFixedThreadPool(
          4,
          r -> {
            Thread t = new Thread(r, "plan-backend");
            t.setDaemon(true);
            return t;
          });

  Backends(int n, Set<String> sick) throws IOException {
    for (int i = 0; i < n; i++) {
      String name = "b" + i;
      boolean healthy = !sick.contains(name);
      HttpServer s =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
      s.createContext(
          "/",
          ex -> {
            boolean health = ex.getRequestURI().getPath().equals("/health");
            byte[] body = name.getBytes(StandardCharsets.UTF_8);
            ex.getRequestBody().readAllBytes();
            ex.sendResponseHeaders(health && !healthy ? 503 : 200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
          });
      s.setExecutor(pool);
      s.start();
      servers.add(s);
      names.add(name);
      ports.add(s.getAddress().getPort());
    }
  }

  /** Closes one backend's listener: connecting to it is refused from now on. */
  void stop(String name) {
    servers.get(names.indexOf(name)).stop(0);
  }

  int port(String name) {
    return ports.get(names.indexOf(name));
  }

  @Override
  public void close() {
    servers.forEach(s -> s.stop(0));
    pool.shutdownNow();
  }
}

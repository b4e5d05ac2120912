package io.fairway.daemon;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The admin endpoint {@code fairway status} talks to: plain HTTP on a loopback address.
 *
 * <p>Loopback only, because it answers without authentication; the address is checked, not
 * trusted. {@code GET /status} returns the status text.
 */
public final class AdminServer implements AutoCloseable {
  private final HttpServer server;

  private AdminServer(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts serving.
   *
   * @throws IllegalArgumentException the address is not a loopback address
   * @throws IOException the port cannot be bound
   */
  public static AdminServer start(InetSocketAddress address, Supplier<String> status) throws IOException {
    if (address.isUnresolved() || !address.getAddress().isLoopbackAddress()) {
      throw new IllegalArgumentException("--admin must be a loopback address, got " + address);
    }
    HttpServer server = HttpServer.create(address, 8);
    server.createContext("/status", ex -> respond(ex, 200, status.get()));
    server.createContext("/", ex -> respond(ex, 404, "not found; try /status\n"));
    server.setExecutor(null);
    server.start();
    return new AdminServer(server);
  }

  /** The bound address (with the actual port when 0 was asked for). */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  private static void respond(HttpExchange ex, int code, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}

package io.fairway.daemon.admin;

import io.fairway.daemon.EventHub;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A status-only admin endpoint ({@code GET /status}) on loopback, for the demo and tests that have
 * no full runtime API around them. {@code fairway run} serves the whole API ({@link
 * io.fairway.daemon.admin.AdminApi}) on the same listener code.
 */
public final class AdminServer implements AutoCloseable {
  private final AdminHttpServer server;

  private AdminServer(AdminHttpServer server) {
    this.server = server;
  }

  /**
   * Starts serving.
   *
   * @throws IllegalArgumentException the address is not a loopback address
   * @throws IOException the port cannot be bound
   */
  public static AdminServer start(InetSocketAddress address, Supplier<String> status)
      throws IOException {
    return start(address, AdminHosts.DEFAULT, status);
  }

  /**
   * Starts serving requests whose {@code Host} is one of {@code hosts}.
   *
   * @throws IllegalArgumentException the address is not a loopback address
   * @throws IOException the port cannot be bound
   */
  public static AdminServer start(
      InetSocketAddress address, AdminHosts hosts, Supplier<String> status) throws IOException {
    if (address.isUnresolved() || !address.getAddress().isLoopbackAddress()) {
      throw new IllegalArgumentException("--admin must be a loopback address, got " + address);
    }
    return new AdminServer(
        AdminHttpServer.start(
            address,
            () -> null,
            false,
            Duration.ofSeconds(10),
            AdminApi.statusOnly(status),
            new EventHub(Clock.systemUTC()),
            new AdminSessions(),
            hosts));
  }

  /** The bound address (with the actual port when 0 was asked for). */
  public InetSocketAddress address() {
    return server.address();
  }

  @Override
  public void close() {
    server.close();
  }
}

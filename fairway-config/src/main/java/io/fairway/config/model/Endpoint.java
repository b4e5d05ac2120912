package io.fairway.config.model;

import java.net.InetAddress;
import java.util.Optional;

/**
 * Where a network checker connects to and from, already resolved: {@code connect_ip} and {@code
 * connect_port} default to the real server's address and port.
 *
 * @param address the address to check ({@code connect_ip}, else the real server's)
 * @param port the port to check ({@code connect_port}, else the real server's; 0 for PING)
 * @param bindTo the source address ({@code bindto ADDRESS}), if any
 * @param bindPort the source port ({@code bind_port}), 0 for any
 * @param bindInterface the interface for a link-local source ({@code bind_if}), if any
 * @param fwmark the SO_MARK to set on the socket ({@code fwmark}), 0 for none
 */
public record Endpoint(
    InetAddress address,
    int port,
    Optional<InetAddress> bindTo,
    int bindPort,
    Optional<String> bindInterface,
    long fwmark) {}

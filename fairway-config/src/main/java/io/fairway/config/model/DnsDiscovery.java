package io.fairway.config.model;

import io.fairway.config.model.base.Addresses;
import io.fairway.config.model.base.Location;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A {@code real_server_dns} block (a Fairway extension): real servers taken from DNS answers
 * instead of written down, each built from {@link #template()} with the answer's address and port.
 *
 * @param location where the block starts (warnings about the answers name it)
 * @param name the DNS name asked, without a trailing dot
 * @param type which records: SRV (target and port from each answer) or A/AAAA (with {@link
 *     #port()})
 * @param port the real servers' port for A/AAAA; 0 for SRV
 * @param nameservers the name servers to ask; empty = those of {@code /etc/resolv.conf}
 * @param refresh the longest time between two resolutions (shorter when an answer's TTL is)
 * @param hold how long the last answer is kept when the name is gone (NXDOMAIN) or has no record
 * @param maxServers the most real servers taken from one answer (the rest are dropped, with a
 *     warning)
 * @param srvWeight {@code weight srv}: each server's weight is its SRV weight (at least 1)
 * @param template what every discovered server gets: weight, lvs_method, thresholds, slow_start,
 *     inhibit_on_failure, notify scripts and checkers. Its address is the unspecified address of
 *     the virtual server's family and its checkers' endpoints that still point there (no {@code
 *     connect_ip}) point at each discovered server; those on {@link #placeholderPort()} (no {@code
 *     connect_port}) at its port
 */
public record DnsDiscovery(
    Location location,
    String name,
    RecordType type,
    int port,
    List<NameServer> nameservers,
    Duration refresh,
    Duration hold,
    int maxServers,
    boolean srvWeight,
    RealServer template) {

  /** The port SRV templates are parsed with: its checkers' endpoints take each answer's port. */
  public static final int SRV_PLACEHOLDER_PORT = 65535;

  /** Default of {@code refresh}. */
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(10);

  /** Default of {@code hold}. */
  public static final Duration DEFAULT_HOLD = Duration.ofSeconds(60);

  /** Default of {@code max_servers}. */
  public static final int DEFAULT_MAX_SERVERS = 64;

  public DnsDiscovery {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    nameservers = List.copyOf(nameservers);
    Objects.requireNonNull(template, "template");
    if (maxServers < 1) {
      throw new IllegalArgumentException("max_servers must be >= 1: " + maxServers);
    }
  }

  /** The records a {@code real_server_dns} block asks for. */
  public enum RecordType {
    SRV,
    A,
    AAAA
  }

  /**
   * A {@code nameserver ADDRESS [PORT]} line.
   *
   * @param address the server's address
   * @param port its port, 53 unless given
   */
  public record NameServer(InetAddress address, int port) {
    public NameServer {
      Objects.requireNonNull(address, "address");
    }

    @Override
    public String toString() {
      return Addresses.formatWithPort(address, port);
    }
  }

  /** The port the template's checkers were parsed with. */
  public int placeholderPort() {
    return type == RecordType.SRV ? SRV_PLACEHOLDER_PORT : port;
  }
}

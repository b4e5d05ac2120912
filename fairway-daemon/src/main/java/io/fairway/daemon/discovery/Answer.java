package io.fairway.daemon.discovery;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;

/**
 * What one resolution of a block gave.
 *
 * @param outcome found records, the name is gone (NXDOMAIN or no record) or the query failed
 * @param members the servers found, in canonical order (empty unless found)
 * @param ttl the smallest TTL of the records (zero when none)
 * @param error why the query failed or what was cut; empty when nothing to say
 */
public record Answer(Outcome outcome, List<Member> members, Duration ttl, String error) {
  public Answer {
    members = List.copyOf(members);
  }

  /** How a resolution ended. */
  public enum Outcome {
    FOUND,
    GONE,
    FAILED
  }

  static Answer gone(String why) {
    return new Answer(Outcome.GONE, List.of(), Duration.ZERO, why);
  }

  static Answer failed(String why) {
    return new Answer(Outcome.FAILED, List.of(), Duration.ZERO, why);
  }

  /** A server of an answer by its name, address and port: what names its real server. */
  public record Server(String name, InetAddress address, int port) {}

  /**
   * One server of an answer.
   *
   * @param name the SRV target and port, or the address and port: its name and shard ident
   * @param address where it is
   * @param port its port
   * @param weight the SRV weight (0 for A/AAAA)
   * @param tier 0 for the lowest SRV priority that has an address (and for A/AAAA); 1, 2, ... for
   *     the higher priorities that do, in order: backups (RFC 2782)
   */
  public record Member(String name, InetAddress address, int port, int weight, int tier)
      implements Comparable<Member> {
    /** In tier 0. */
    public Member(String name, InetAddress address, int port, int weight) {
      this(name, address, port, weight, 0);
    }

    /** Which server it is: the same real server whatever its weight and tier. */
    public Server server() {
      return new Server(name, address, port);
    }

    @Override
    public int compareTo(Member o) {
      int c = java.util.Arrays.compareUnsigned(address.getAddress(), o.address.getAddress());
      if (c == 0) {
        c = Integer.compare(port, o.port);
      }
      c = c != 0 ? c : name.compareTo(o.name);
      return c != 0 ? c : Integer.compare(tier, o.tier);
    }
  }
}

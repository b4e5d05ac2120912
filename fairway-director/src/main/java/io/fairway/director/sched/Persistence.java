package io.fairway.director.sched;

/**
 * A virtual server's {@code persistence_timeout} and {@code persistence_granularity}.
 *
 * @param timeoutMillis how long a client keeps its server after its last new connection (and after
 *     its last connection has ended); 0 disables persistence
 * @param ipv4Mask client addresses are masked with this before lookup (0xffffffff = per address)
 * @param ipv6PrefixLength the same for IPv6 clients (128 = per address)
 * @param expireQuiescentTemplate the sysctl {@code expire_quiescent_template}: a template pointing
 *     at a weight-0 server is dropped and the client rescheduled (off by default, as in the kernel:
 *     quiescing keeps sticky clients where they are)
 */
public record Persistence(
    long timeoutMillis, int ipv4Mask, int ipv6PrefixLength, boolean expireQuiescentTemplate) {

  public static final Persistence NONE = new Persistence(0, 0xffffffff, 128, false);

  public Persistence {
    if (timeoutMillis < 0) throw new IllegalArgumentException("persistence_timeout is negative");
    if (ipv6PrefixLength < 1 || ipv6PrefixLength > 128) {
      throw new IllegalArgumentException(
          "persistence_granularity /" + ipv6PrefixLength + " is out of range 1..128");
    }
  }

  /** keepalived's {@code persistence_timeout N} in seconds, per client address. */
  public static Persistence seconds(long seconds) {
    return new Persistence(seconds * 1000, 0xffffffff, 128, false);
  }

  public Persistence withIpv4Mask(int mask) {
    return new Persistence(timeoutMillis, mask, ipv6PrefixLength, expireQuiescentTemplate);
  }

  public Persistence withIpv6Prefix(int prefix) {
    return new Persistence(timeoutMillis, ipv4Mask, prefix, expireQuiescentTemplate);
  }

  public Persistence withExpireQuiescentTemplate(boolean on) {
    return new Persistence(timeoutMillis, ipv4Mask, ipv6PrefixLength, on);
  }

  public boolean enabled() {
    return timeoutMillis > 0;
  }
}

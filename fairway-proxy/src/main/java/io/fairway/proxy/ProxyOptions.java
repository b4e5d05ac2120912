package io.fairway.proxy;

import java.time.Duration;
import java.util.Objects;
import org.slf4j.LoggerFactory;

/**
 * Data-plane settings that apply to every service of a {@code ProxyTable}. Made with {@link
 * #builder()} (from the defaults) or {@link #toBuilder()} (from other options).
 *
 * @param ioThreads event-loop threads; 0 means one per core
 * @param connectTimeout how long a backend connect may take before the next server is tried
 * @param idleTimeout an established L4 connection, or an HTTP exchange, with no traffic either way
 *     for this long is closed
 * @param clientHeaderTimeout how long an HTTP client may take to send a complete request head (and
 *     how long a keep-alive client may sit idle); a client that never sends is closed then
 * @param backendResponseTimeout how long a backend may take to start its response before the client
 *     gets a 504
 * @param keepConnectionsOnRemove what the kernel's {@code expire_nodest_conn=0} does: deleting a
 *     destination leaves its established connections running instead of closing them
 * @param inactiveExpiry how long a closed connection still counts as inactive for the schedulers
 *     and thresholds (the kernel keeps it in TIME_WAIT/CLOSE for its state timeout)
 * @param maxInitialLineLength longest HTTP request line accepted (else 414-class 400)
 * @param maxHeaderSize largest HTTP header block accepted (else 400 and close)
 * @param maxIdleBackendConnections idle keep-alive connections kept per backend and event loop
 * @param backendKeepAlive how long an idle pooled backend connection is kept
 * @param spliceThreshold L4 relays only: a single read of at least this many bytes (a bulk transfer
 *     is streaming; reads are at most 64 KiB) makes that direction of the connection move its next
 *     MiB kernel-to-kernel with splice(2) instead of copying it through the JVM, then look again; 0
 *     splices everything from the first byte, -1 never splices. Default {@link
 *     #defaultSpliceThreshold()}. Needs the native epoll transport; ignored otherwise
 * @param udpTimeout a UDP flow (one client address and port, bound to the server its first datagram
 *     went to) ends this long after its last datagram either way; the kernel's {@code udp} timeout,
 *     300 s by default ({@code lvs_timeouts udp})
 * @param maxUdpFlows UDP flows kept at once, over all services; each is a socket (a file
 *     descriptor), so a flood of new client addresses is refused here rather than at the process's
 *     descriptor limit, where TCP would suffer too
 */
public record ProxyOptions(
    int ioThreads,
    Duration connectTimeout,
    Duration idleTimeout,
    Duration clientHeaderTimeout,
    Duration backendResponseTimeout,
    boolean keepConnectionsOnRemove,
    Duration inactiveExpiry,
    int maxInitialLineLength,
    int maxHeaderSize,
    int maxIdleBackendConnections,
    Duration backendKeepAlive,
    long spliceThreshold,
    Duration udpTimeout,
    int maxUdpFlows) {

  public ProxyOptions {
    Objects.requireNonNull(udpTimeout, "udpTimeout");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    Objects.requireNonNull(clientHeaderTimeout, "clientHeaderTimeout");
    Objects.requireNonNull(backendResponseTimeout, "backendResponseTimeout");
    Objects.requireNonNull(inactiveExpiry, "inactiveExpiry");
    Objects.requireNonNull(backendKeepAlive, "backendKeepAlive");
    if (ioThreads < 0
        || maxInitialLineLength < 64
        || maxHeaderSize < 256
        || maxIdleBackendConnections < 0
        || spliceThreshold < -1
        || maxUdpFlows < 1
        || udpTimeout.isNegative()
        || udpTimeout.isZero()) {
      throw new IllegalArgumentException("proxy option out of range");
    }
  }

  /**
   * The default {@link #spliceThreshold()}: the system property {@code
   * fairway.proxy.spliceThreshold} if set (how an operator of {@code fairway run} changes it), else
   * {@value #SPLICE_THRESHOLD} bytes.
   */
  public static long defaultSpliceThreshold() {
    String v = System.getProperty("fairway.proxy.spliceThreshold");
    if (v == null || v.isBlank()) {
      return SPLICE_THRESHOLD;
    }
    try {
      long n = Long.parseLong(v.trim());
      if (n >= -1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    LoggerFactory.getLogger(ProxyOptions.class)
        .warn(
            "-Dfairway.proxy.spliceThreshold={}: not a byte count, 0 or -1; using {}",
            v,
            SPLICE_THRESHOLD);
    return SPLICE_THRESHOLD;
  }

  /**
   * Reads of 32 KiB and more only happen while a sender streams faster than the relay reads (a read
   * takes what is queued, at most 64 KiB); that is where splice measured cheaper.
   */
  static final long SPLICE_THRESHOLD = 32768;

  /** Defaults suited to a small production box. */
  public static ProxyOptions defaults() {
    return builder().build();
  }

  /** A builder holding {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these options, to change some of them. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Changes options one at a time, so that a new option is added here once instead of in a copy
   * method per option. The defaults live in the field initialisers.
   */
  public static final class Builder {
    private int ioThreads = 0;
    private Duration connectTimeout = Duration.ofSeconds(3);
    private Duration idleTimeout = Duration.ofMinutes(5);
    private Duration clientHeaderTimeout = Duration.ofSeconds(15);
    private Duration backendResponseTimeout = Duration.ofSeconds(60);
    private boolean keepConnectionsOnRemove = false;
    private Duration inactiveExpiry = Duration.ofSeconds(60);
    private int maxInitialLineLength = 8192;
    private int maxHeaderSize = 16384;
    private int maxIdleBackendConnections = 256;
    private Duration backendKeepAlive = Duration.ofSeconds(30);
    private long spliceThreshold;
    private Duration udpTimeout = Duration.ofMinutes(5);
    private int maxUdpFlows = 65536;

    private Builder() {
      // read here, not in the initialiser, so toBuilder() does not read (and warn about) it again
      spliceThreshold = defaultSpliceThreshold();
    }

    private Builder(ProxyOptions o) {
      ioThreads = o.ioThreads;
      connectTimeout = o.connectTimeout;
      idleTimeout = o.idleTimeout;
      clientHeaderTimeout = o.clientHeaderTimeout;
      backendResponseTimeout = o.backendResponseTimeout;
      keepConnectionsOnRemove = o.keepConnectionsOnRemove;
      inactiveExpiry = o.inactiveExpiry;
      maxInitialLineLength = o.maxInitialLineLength;
      maxHeaderSize = o.maxHeaderSize;
      maxIdleBackendConnections = o.maxIdleBackendConnections;
      backendKeepAlive = o.backendKeepAlive;
      spliceThreshold = o.spliceThreshold;
      udpTimeout = o.udpTimeout;
      maxUdpFlows = o.maxUdpFlows;
    }

    public Builder ioThreads(int n) {
      ioThreads = n;
      return this;
    }

    public Builder connectTimeout(Duration d) {
      connectTimeout = d;
      return this;
    }

    public Builder idleTimeout(Duration d) {
      idleTimeout = d;
      return this;
    }

    public Builder clientHeaderTimeout(Duration d) {
      clientHeaderTimeout = d;
      return this;
    }

    public Builder backendResponseTimeout(Duration d) {
      backendResponseTimeout = d;
      return this;
    }

    public Builder keepConnectionsOnRemove(boolean keep) {
      keepConnectionsOnRemove = keep;
      return this;
    }

    public Builder inactiveExpiry(Duration d) {
      inactiveExpiry = d;
      return this;
    }

    public Builder maxInitialLineLength(int n) {
      maxInitialLineLength = n;
      return this;
    }

    public Builder maxHeaderSize(int n) {
      maxHeaderSize = n;
      return this;
    }

    public Builder maxIdleBackendConnections(int n) {
      maxIdleBackendConnections = n;
      return this;
    }

    public Builder backendKeepAlive(Duration d) {
      backendKeepAlive = d;
      return this;
    }

    public Builder spliceThreshold(long bytes) {
      spliceThreshold = bytes;
      return this;
    }

    public Builder udpTimeout(Duration d) {
      udpTimeout = d;
      return this;
    }

    public Builder maxUdpFlows(int n) {
      maxUdpFlows = n;
      return this;
    }

    /** The options; the record's constructor checks their ranges. */
    public ProxyOptions build() {
      return new ProxyOptions(
          ioThreads,
          connectTimeout,
          idleTimeout,
          clientHeaderTimeout,
          backendResponseTimeout,
          keepConnectionsOnRemove,
          inactiveExpiry,
          maxInitialLineLength,
          maxHeaderSize,
          maxIdleBackendConnections,
          backendKeepAlive,
          spliceThreshold,
          udpTimeout,
          maxUdpFlows);
    }
  }

  /** Whether L4 relays may splice: a threshold is set and the transport can do it. */
  public boolean splices() {
    return spliceThreshold >= 0 && Transport.EPOLL;
  }
}

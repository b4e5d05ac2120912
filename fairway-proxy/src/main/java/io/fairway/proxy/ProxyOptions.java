package io.fairway.proxy;

import io.fairway.proxy.table.ProxyTable;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.LoggerFactory;

/**
 * Data-plane settings that apply to every service of a {@link ProxyTable}.
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
    return new ProxyOptions(
        0,
        Duration.ofSeconds(3),
        Duration.ofSeconds(300),
        Duration.ofSeconds(15),
        Duration.ofSeconds(60),
        false,
        Duration.ofSeconds(60),
        8192,
        16384,
        256,
        Duration.ofSeconds(30),
        defaultSpliceThreshold(),
        Duration.ofSeconds(300),
        65536);
  }

  public ProxyOptions withIoThreads(int n) {
    return new ProxyOptions(
        n,
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

  public ProxyOptions withConnectTimeout(Duration d) {
    return new ProxyOptions(
        ioThreads,
        d,
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

  public ProxyOptions withIdleTimeout(Duration d) {
    return new ProxyOptions(
        ioThreads,
        connectTimeout,
        d,
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

  public ProxyOptions withClientHeaderTimeout(Duration d) {
    return new ProxyOptions(
        ioThreads,
        connectTimeout,
        idleTimeout,
        d,
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

  public ProxyOptions withBackendResponseTimeout(Duration d) {
    return new ProxyOptions(
        ioThreads,
        connectTimeout,
        idleTimeout,
        clientHeaderTimeout,
        d,
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

  public ProxyOptions withKeepConnectionsOnRemove(boolean keep) {
    return new ProxyOptions(
        ioThreads,
        connectTimeout,
        idleTimeout,
        clientHeaderTimeout,
        backendResponseTimeout,
        keep,
        inactiveExpiry,
        maxInitialLineLength,
        maxHeaderSize,
        maxIdleBackendConnections,
        backendKeepAlive,
        spliceThreshold,
        udpTimeout,
        maxUdpFlows);
  }

  public ProxyOptions withInactiveExpiry(Duration d) {
    return new ProxyOptions(
        ioThreads,
        connectTimeout,
        idleTimeout,
        clientHeaderTimeout,
        backendResponseTimeout,
        keepConnectionsOnRemove,
        d,
        maxInitialLineLength,
        maxHeaderSize,
        maxIdleBackendConnections,
        backendKeepAlive,
        spliceThreshold,
        udpTimeout,
        maxUdpFlows);
  }

  public ProxyOptions withMaxHeaderSize(int n) {
    return new ProxyOptions(
        ioThreads,
        connectTimeout,
        idleTimeout,
        clientHeaderTimeout,
        backendResponseTimeout,
        keepConnectionsOnRemove,
        inactiveExpiry,
        maxInitialLineLength,
        n,
        maxIdleBackendConnections,
        backendKeepAlive,
        spliceThreshold,
        udpTimeout,
        maxUdpFlows);
  }

  public ProxyOptions withSpliceThreshold(long bytes) {
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
        bytes,
        udpTimeout,
        maxUdpFlows);
  }

  public ProxyOptions withUdpTimeout(Duration d) {
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
        d,
        maxUdpFlows);
  }

  public ProxyOptions withMaxUdpFlows(int n) {
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
        n);
  }

  /** Whether L4 relays may splice: a threshold is set and the transport can do it. */
  public boolean splices() {
    return spliceThreshold >= 0 && Transport.EPOLL;
  }
}

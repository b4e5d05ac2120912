package io.fairway.proxy.l4;

import io.fairway.proxy.accesslog.AccessLog;
import io.fairway.proxy.accesslog.AccessRecord;
import io.fairway.proxy.accesslog.AccessRecord.Termination;
import io.fairway.proxy.table.ProxyBackend;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * The access-log record of one L4 connection, noted as it goes and written once both sides are
 * closed: the client, the real server, the bytes read from each side, the time spent waiting for a
 * slot and connecting, the total, and how it ended. Made only for a service with an access log, so
 * a connection without one carries nothing more. Used on the client's event loop only (the backend
 * channel shares it).
 */
final class ConnectionLog {
  private final AccessLog log;
  private final String virtualServer;
  private final Channel clientChannel;
  private final InetSocketAddress client;
  private final TrafficMeter clientMeter;
  private final long startMillis = System.currentTimeMillis();
  private final long startNanos = System.nanoTime();
  private final @Nullable String tlsVersion;
  private final @Nullable String sni;

  private long leasedNanos = -1;
  private long connectedNanos = -1;
  private @Nullable ProxyBackend server;
  private @Nullable TrafficMeter backendMeter;
  private @Nullable Channel backend;
  private int attempts;

  /** Until something else is known: the client went away before it had a server. */
  private Termination cause = Termination.CLIENT_CLOSED;

  private boolean written;

  ConnectionLog(
      AccessLog log,
      String virtualServer,
      Channel clientChannel,
      InetSocketAddress client,
      TrafficMeter clientMeter) {
    this.log = log;
    this.virtualServer = virtualServer;
    this.clientChannel = clientChannel;
    this.client = client;
    this.clientMeter = clientMeter;
    io.fairway.proxy.tls.TlsInfo tls = io.fairway.proxy.tls.TlsInfo.of(clientChannel);
    this.tlsVersion = tls.version();
    this.sni = tls.sni();
    // Once the client is closed, the record waits for the backend channel (if there is one) to be
    // closed too, so that the bytes it read to the end are counted.
    clientChannel.closeFuture().addListener(f -> clientClosed());
  }

  /** A server was chosen (again, after a failed connect: the queue time is the first wait's). */
  void leased(ProxyBackend rs) {
    if (leasedNanos < 0) {
      leasedNanos = System.nanoTime();
    }
    attempts++;
    server = rs;
  }

  /** The connection to the server is up; from now on a close of either side is a normal end. */
  void connected(Channel backendChannel, TrafficMeter meter) {
    connectedNanos = System.nanoTime();
    backend = backendChannel;
    backendMeter = meter;
    cause = Termination.OK;
  }

  /** How it ended, when it was not an ordinary close. */
  void ended(Termination why) {
    cause = why;
  }

  private void clientClosed() {
    Channel b = backend;
    if (b == null) {
      write();
    } else {
      b.closeFuture().addListener(f -> write());
    }
  }

  private void write() {
    if (written) {
      return;
    }
    written = true;
    if (IdleWatch.timedOut(clientChannel)) {
      cause = Termination.IDLE_TIMEOUT;
    }
    long end = System.nanoTime();
    log.record(
        new AccessRecord(
            startMillis,
            client,
            virtualServer,
            server == null ? null : server.name(),
            null,
            null,
            null,
            0,
            clientMeter.total(),
            backendMeter == null ? 0 : backendMeter.total(),
            leasedNanos < 0 ? -1 : micros(leasedNanos - startNanos),
            connectedNanos < 0 ? -1 : micros(connectedNanos - leasedNanos),
            -1,
            micros(end - startNanos),
            Math.max(0, attempts - 1),
            tlsVersion,
            sni,
            cause));
  }

  private static long micros(long nanos) {
    return nanos / 1000;
  }
}

package io.fairway.proxy.http;

import io.fairway.proxy.accesslog.AccessLog;
import io.fairway.proxy.accesslog.AccessRecord;
import io.fairway.proxy.accesslog.AccessRecord.Termination;
import io.fairway.proxy.table.ProxyBackend;
import io.fairway.proxy.table.ProxyService;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * What one exchange's access-log record needs, noted as it goes: the moments it got a server, a
 * connection and the response's head, the bytes both ways, the status the client got and how it
 * ended. Kept even without an access log: a few fields per request cost less than asking.
 */
final class ExchangeLog {
  private final long startNanos;
  private final long startMillis = System.currentTimeMillis();
  private long leasedNanos = -1;
  private long connectStartNanos = -1;
  private long connectedNanos = -1;
  private long firstByteNanos = -1;
  private @Nullable ProxyBackend server;

  long bytesIn;
  long bytesOut;

  /** The status the client got (a response's, or the proxy's own page), 0 = none. */
  int status;

  /** Until something else is known: the client went away (or the connection timed out). */
  Termination cause = Termination.CLIENT_CLOSED;

  ExchangeLog(long startNanos) {
    this.startNanos = startNanos;
  }

  /** A server was chosen (again, after a retry: the queue time is the first wait's). */
  void leased(ProxyBackend rs) {
    long now = System.nanoTime();
    if (leasedNanos < 0) {
      leasedNanos = now;
    }
    connectStartNanos = now;
    server = rs;
  }

  /** The protocol of the backend connection that carries the request (the last one tried). */
  @Nullable String backendProtocol;

  /** A backend connection (pooled or new) or HTTP/2 stream carries the request. */
  void connected(boolean h2) {
    connectedNanos = System.nanoTime();
    backendProtocol = h2 ? "HTTP/2.0" : "HTTP/1.1";
  }

  void firstByte(int responseStatus) {
    firstByteNanos = System.nanoTime();
    status = responseStatus;
  }

  /** Writes the record to {@code vs}'s access log, if it has one. */
  void logTo(ProxyService vs, ClientSide client, HttpHead request, int retries) {
    AccessLog log = vs.accessLog();
    if (log != AccessLog.NONE) {
      log.record(
          record(
              client.remoteAddress(),
              vs.service().key().toString(),
              request,
              client.protocol(),
              retries,
              client.tlsVersion(),
              client.sni()));
    }
  }

  AccessRecord record(
      InetSocketAddress client,
      String virtualServer,
      HttpHead request,
      @Nullable String protocol,
      int retries,
      @Nullable String tlsVersion,
      @Nullable String sni) {
    long end = System.nanoTime();
    return new AccessRecord(
        startMillis,
        client,
        virtualServer,
        server == null ? null : server.name(),
        request.method(),
        request.target(),
        protocol != null ? protocol : request.http10 ? "HTTP/1.0" : "HTTP/1.1",
        status,
        bytesIn,
        bytesOut,
        micros(startNanos, leasedNanos),
        micros(connectStartNanos, connectedNanos),
        micros(startNanos, firstByteNanos),
        micros(startNanos, end),
        retries,
        tlsVersion,
        sni,
        cause,
        backendProtocol);
  }

  private static long micros(long from, long to) {
    return from < 0 || to < 0 ? -1 : (to - from) / 1000;
  }
}

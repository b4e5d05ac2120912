package io.fairway.proxy.accesslog;

import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * What the access log says about one ended request (or L4 connection). Durations are in
 * microseconds, -1 when the stage was never reached; text fields are {@code null} when unknown
 * (written as {@code -}).
 *
 * <p>An L4 connection's record has no method, target, protocol or status; its bytes are those read
 * from the client's and the server's sockets, its queue time runs from the accept to the choice of
 * a server, its connect time from there to the established connection, and its total from the
 * accept to the close of both sides.
 *
 * @param startMillis when the request's head arrived, or the L4 connection was accepted (epoch
 *     milliseconds)
 * @param client the client's address and port
 * @param virtualServer the virtual server's name
 * @param realServer the real server that answered (the last one tried), or {@code null}
 * @param method the request method, {@code null} for an L4 connection
 * @param target the request target as sent, {@code null} for an L4 connection
 * @param protocol the request's protocol ({@code HTTP/1.1}), {@code null} for L4
 * @param status the status sent to the client, 0 when none was
 * @param bytesIn bytes that went from the client to the server
 * @param bytesOut bytes that came from the server for the client
 * @param queueMicros time waiting for a slot (max_conns, uthreshold)
 * @param connectMicros time to a backend connection (0 for a pooled one)
 * @param firstByteMicros from the head's arrival to the response's head
 * @param totalMicros from the head's arrival to the end
 * @param retries backend attempts after the first
 * @param tlsVersion the client's TLS version, {@code null} without TLS
 * @param sni the client's TLS server name, {@code null} without TLS or SNI
 * @param termination how it ended
 * @param backendProtocol the protocol the request went to its server in ({@code HTTP/1.1}, or
 *     {@code HTTP/2.0} to a real server with {@code http2}); {@code null} for L4 and when no
 *     backend was reached
 */
public record AccessRecord(
    long startMillis,
    InetSocketAddress client,
    String virtualServer,
    @Nullable String realServer,
    @Nullable String method,
    @Nullable String target,
    @Nullable String protocol,
    int status,
    long bytesIn,
    long bytesOut,
    long queueMicros,
    long connectMicros,
    long firstByteMicros,
    long totalMicros,
    int retries,
    @Nullable String tlsVersion,
    @Nullable String sni,
    Termination termination,
    @Nullable String backendProtocol) {

  /** Without a backend protocol (L4). */
  public AccessRecord(
      long startMillis,
      InetSocketAddress client,
      String virtualServer,
      @Nullable String realServer,
      @Nullable String method,
      @Nullable String target,
      @Nullable String protocol,
      int status,
      long bytesIn,
      long bytesOut,
      long queueMicros,
      long connectMicros,
      long firstByteMicros,
      long totalMicros,
      int retries,
      @Nullable String tlsVersion,
      @Nullable String sni,
      Termination termination) {
    this(
        startMillis,
        client,
        virtualServer,
        realServer,
        method,
        target,
        protocol,
        status,
        bytesIn,
        bytesOut,
        queueMicros,
        connectMicros,
        firstByteMicros,
        totalMicros,
        retries,
        tlsVersion,
        sni,
        termination,
        null);
  }

  /** How a request (or connection) ended, as the log names it. */
  public enum Termination {
    /** Answered in full; for an L4 connection, closed by either side after it was relayed. */
    OK("ok"),
    /**
     * The client closed or half-closed before its answer; for an L4 connection, before it had a
     * server.
     */
    CLIENT_CLOSED("client_closed"),
    /** The client was too slow sending its request. */
    CLIENT_TIMEOUT("client_timeout"),
    /** The request broke HTTP's framing. */
    BAD_REQUEST("bad_request"),
    /** No server to send it to (503). */
    NO_SERVER("no_server"),
    /** Every server stayed full for the connect timeout (503). */
    QUEUE_TIMEOUT("queue_timeout"),
    /** The server failed, or sent no valid response (502, or a response cut short). */
    SERVER_FAILED("server_failed"),
    /** The server did not answer within first_byte (504). */
    SERVER_TIMEOUT("server_timeout"),
    /** The server switched protocols; the connection became a tunnel. */
    UPGRADED("upgraded"),
    /** An L4 connection carried nothing either way for the idle timeout and was closed. */
    IDLE_TIMEOUT("idle_timeout");

    private final String text;

    Termination(String text) {
      this.text = text;
    }

    public String text() {
      return text;
    }
  }
}

package io.fairway.proxy.http;

/**
 * How a final response's body goes from an HTTP/1.1 backend to the client, and what that leaves of
 * both connections' keep-alive: a chunked body is de-chunked for an HTTP/1.0 client (which then
 * gets the close as the end), a close-delimited one is chunked for a keep-alive HTTP/1.1 client or
 * ends the client connection otherwise, and never leaves the backend connection reusable.
 *
 * @param dechunk pass the chunk data alone (the decoder strips the framing)
 * @param addChunked add {@code Transfer-Encoding: chunked}: the proxy chunks the body
 * @param backendReusable the backend connection can go back to the pool afterwards
 * @param clientKeepAlive the client connection stays open afterwards
 * @param connection what the response head says about the connection
 */
public record ResponseFraming(
    boolean dechunk,
    boolean addChunked,
    boolean backendReusable,
    boolean clientKeepAlive,
    HeadWriter.Connection connection) {

  static ResponseFraming of(
      HttpHead h, boolean headRequest, boolean clientHttp10, boolean clientKeepAlive) {
    boolean backendReusable = h.keepAlive();
    boolean dechunk = false;
    boolean addChunked = false;
    if (!headRequest && h.status != 204 && h.status != 304) {
      if (h.chunked) {
        if (clientHttp10) {
          // The decoder passes the chunk data alone; the end of the body is the close.
          dechunk = true;
          clientKeepAlive = false;
        }
      } else if (h.transferEncoding || h.contentLength < 0) {
        // Close-delimited body from the backend: chunk it for an HTTP/1.1 client, or end the
        // client connection after it for an HTTP/1.0 one.
        backendReusable = false;
        if (!clientHttp10 && !h.transferEncoding && clientKeepAlive) {
          addChunked = true;
        } else {
          clientKeepAlive = false;
        }
      }
    }
    HeadWriter.Connection c =
        !clientKeepAlive
            ? HeadWriter.Connection.CLOSE
            : clientHttp10 ? HeadWriter.Connection.KEEP_ALIVE : HeadWriter.Connection.UNCHANGED;
    return new ResponseFraming(dechunk, addChunked, backendReusable, clientKeepAlive, c);
  }
}

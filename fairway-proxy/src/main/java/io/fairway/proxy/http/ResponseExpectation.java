package io.fairway.proxy.http;

/**
 * What the next response on a backend connection or stream answers, told by the exchange before it
 * writes the request: whether it has a body depends on the request as much as on the response, and
 * how its body goes on depends on the client.
 */
interface ResponseExpectation {
  /**
   * Tells the decoder what the response to the request just written may be.
   *
   * @param headRequest the request is a HEAD: the response has no body whatever it says
   * @param dechunk the client cannot take chunk framing (HTTP/1.0, or it frames bodies itself as
   *     HTTP/2 does): body slices are the data alone
   * @param upgrade the request asked for a protocol switch, so a 101 is allowed
   * @param trailers the client takes response trailers (an HTTP/2 client, or an HTTP/1.1 one that
   *     sent {@code TE: trailers}); HTTP/1.1 backends pass a chunked body's trailers as they are
   */
  void expect(boolean headRequest, boolean dechunk, boolean upgrade, boolean trailers);
}

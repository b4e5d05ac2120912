package io.fairway.proxy;

import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;

/**
 * The client-side response encoder, told when the response answers a HEAD request: such a
 * response may announce a chunked body it does not have, and writing the terminating chunk would
 * corrupt the next response on the connection.
 */
final class ProxyResponseEncoder extends HttpResponseEncoder {
  boolean headRequest;

  @Override
  protected boolean isContentAlwaysEmpty(HttpResponse msg) {
    return headRequest || super.isContentAlwaysEmpty(msg);
  }
}

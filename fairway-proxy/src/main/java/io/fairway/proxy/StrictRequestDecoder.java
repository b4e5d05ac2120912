package io.fairway.proxy;

import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequestDecoder;

/**
 * Netty's request decoder, refusing requests that carry both {@code Content-Length} and {@code
 * Transfer-Encoding}.
 *
 * <p>RFC 9112 lets a server either drop the Content-Length or reject the request. A proxy must
 * reject: the backend may frame the body differently from us, and the bytes one side thinks are
 * body the other reads as a second, smuggled request.
 */
final class StrictRequestDecoder extends HttpRequestDecoder {

  StrictRequestDecoder(ProxyOptions o) {
    super(
        new HttpDecoderConfig()
            .setMaxInitialLineLength(o.maxInitialLineLength())
            .setMaxHeaderSize(o.maxHeaderSize())
            .setMaxChunkSize(16384)
            .setAllowDuplicateContentLengths(false)
            .setStrictLineParsing(true));
  }

  @Override
  protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
    throw new IllegalArgumentException(
        "both Content-Length and Transfer-Encoding present (request smuggling attempt)");
  }
}

package io.fairway.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/**
 * Fairway's own small responses for what went wrong between the client and a backend: the client
 * learns which side failed (400 its request, 502 the backend, 503 no backend, 504 too slow)
 * without a backend's or a library's internals leaking out.
 */
final class ErrorPages {
  private ErrorPages() {}

  static FullHttpResponse page(HttpResponseStatus status, String detail, boolean close) {
    String html =
        "<!DOCTYPE html>\n<html><head><title>"
            + status
            + "</title></head><body><h1>"
            + status
            + "</h1><p>"
            + escape(detail)
            + "</p><hr><p>fairway</p></body></html>\n";
    ByteBuf body = Unpooled.copiedBuffer(html, StandardCharsets.UTF_8);
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    r.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, "text/html; charset=utf-8")
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
        .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
    if (close) {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    return r;
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}

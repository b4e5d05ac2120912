package io.fairway.proxy.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;

/**
 * Fairway's own small responses for what went wrong between the client and a backend: the client
 * learns which side failed (400 its request, 502 the backend, 503 no backend, 504 too slow) without
 * a backend's or a library's internals leaking out.
 */
final class ErrorPages {
  private ErrorPages() {}

  /** A complete response (head and body) with the given status. */
  static ByteBuf page(int status, String detail, boolean close) {
    String st = HttpResponseStatus.valueOf(status).toString();
    byte[] body = html(status, detail);
    String head =
        "HTTP/1.1 "
            + st
            + "\r\n"
            + "content-type: text/html; charset=utf-8\r\n"
            + "content-length: "
            + body.length
            + "\r\n"
            + "cache-control: no-cache\r\n"
            + (close ? "connection: close\r\n" : "")
            + "\r\n";
    return Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.ISO_8859_1), body);
  }

  /** The body of such a response: a short HTML page. */
  static byte[] html(int status, String detail) {
    String st = HttpResponseStatus.valueOf(status).toString();
    String html =
        "<!DOCTYPE html>\n<html><head><title>"
            + st
            + "</title></head><body><h1>"
            + st
            + "</h1><p>"
            + escape(detail)
            + "</p><hr><p>fairway</p></body></html>\n";
    return html.getBytes(StandardCharsets.UTF_8);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}

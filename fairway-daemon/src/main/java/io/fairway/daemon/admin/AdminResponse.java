package io.fairway.daemon.admin;

import io.fairway.daemon.Json;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * One answer: a status, a content type and a body; or, for {@link #eventStream()}, the start of a
 * Server-Sent Events stream that the {@link EventHub} keeps feeding.
 */
// A byte[] body is carried, never compared: reference equality of the record is never asked for.
@SuppressWarnings("ArrayRecordComponent")
public record AdminResponse(int status, String contentType, byte[] body, boolean eventStream) {
  static final String JSON = "application/json";

  public static AdminResponse json(int status, Object value) {
    return new AdminResponse(status, JSON, Json.bytes(value), false);
  }

  /** A one-line JSON error: {@code {"error":"...","status":N}}. */
  public static AdminResponse error(int status, @Nullable String message) {
    return json(status, new ErrorBody(message, status));
  }

  public static AdminResponse text(int status, String text) {
    return new AdminResponse(
        status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8), false);
  }

  public static AdminResponse of(int status, String contentType, byte[] body) {
    return new AdminResponse(status, contentType, body, false);
  }

  /** Keep the connection and send it events. */
  public static AdminResponse events() {
    return new AdminResponse(200, "text/event-stream", new byte[0], true);
  }

  record ErrorBody(@Nullable String error, int status) {}
}

package io.fairway.proxy.http2;

import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import org.jspecify.annotations.Nullable;

/**
 * The stream-state rules for a client's HEADERS that Netty's decoder answers with a weaker error
 * than RFC 9113 section 5.1 asks (h2spec 5.1/6, 5.1/12 and 5.1.1/2):
 *
 * <ul>
 *   <li>HEADERS on a half-closed (remote) stream: a stream error STREAM_CLOSED (Netty first finds
 *       the pseudo-header fields of a second header block and says PROTOCOL_ERROR);
 *   <li>HEADERS on a stream that closed normally: a connection error STREAM_CLOSED (Netty resets
 *       the stream only);
 *   <li>HEADERS opening a stream whose id the client skipped (lower than one it opened): a
 *       connection error PROTOCOL_ERROR (Netty cannot tell it from a closed stream).
 * </ul>
 *
 * <p>Netty has no hook between a header block's decoding and its decoder's state checks but the
 * frame logger, which its reader calls first for every inbound frame; so {@link FrameTap}, the
 * frame logger, calls this, and the error thrown here is handled by the codec as if its decoder had
 * thrown it (RST_STREAM or GOAWAY with the code). A stream Fairway or the client reset is left to
 * Netty: frames racing a RST_STREAM are to be ignored, not punished. Its memory is bounded: the
 * last 1024 reset ids and 64 gaps in the client's ids; a connection beyond that gets Netty's
 * answers.
 */
final class StreamStateGuard {
  private static final int MAX_RESET = 1024;
  private static final int MAX_GAPS = 64;

  /** Null until {@link #watch}: frames before that are left to Netty. */
  private @Nullable Http2Connection connection;

  private final LinkedHashSet<Integer> reset = new LinkedHashSet<>();
  private final ArrayDeque<int[]> gaps = new ArrayDeque<>();
  private boolean gapsOverflowed;
  private int highest;

  /** Watches {@code c}'s streams: the ids the client opens, those reset. */
  void watch(Http2Connection c) {
    connection = c;
    c.addListener(
        new Http2ConnectionAdapter() {
          @Override
          public void onStreamAdded(Http2Stream s) {
            if (!c.remote().isValidStreamId(s.id())) {
              return;
            }
            int id = s.id();
            if (highest != 0 ? id > highest + 2 : id > 1) {
              if (gaps.size() < MAX_GAPS) {
                gaps.add(new int[] {highest + 2, id - 2});
              } else {
                gapsOverflowed = true;
              }
            }
            highest = Math.max(highest, id);
          }

          @Override
          public void onStreamClosed(Http2Stream s) {
            if (s.isResetSent()) {
              remember(s.id());
            }
          }
        });
  }

  private void remember(int id) {
    if (reset.size() == MAX_RESET) {
      reset.remove(reset.iterator().next());
    }
    reset.add(id);
  }

  /** The client reset stream {@code id}. */
  void inboundReset(int id) {
    remember(id);
  }

  /**
   * Checks a client's HEADERS on stream {@code id}, before Netty's decoder sees them; a breach
   * throws the stream or connection error (an {@link Http2Exception}, undeclared) for the codec to
   * answer.
   */
  void inboundHeaders(int id) {
    if (connection == null) {
      return;
    }
    if (!connection.remote().isValidStreamId(id) || connection.goAwaySent()) {
      return;
    }
    Http2Stream s = connection.stream(id);
    if (s != null) {
      if (s.state() == Http2Stream.State.HALF_CLOSED_REMOTE
          && s.isHeadersReceived()
          && !s.isResetSent()) {
        sneaky(
            Http2Exception.streamError(
                id, Http2Error.STREAM_CLOSED, "HEADERS on half-closed (remote) stream %d", id));
      }
      return;
    }
    if (id > highest || reset.contains(id)) {
      return; // a new stream, or one whose frames may still race its reset
    }
    if (skipped(id)) {
      sneaky(
          Http2Exception.connectionError(
              Http2Error.PROTOCOL_ERROR,
              "stream %d opened after %d: ids must increase",
              id,
              highest));
    } else if (!gapsOverflowed) {
      sneaky(
          Http2Exception.connectionError(
              Http2Error.STREAM_CLOSED, "HEADERS on closed stream %d", id));
    }
  }

  private boolean skipped(int id) {
    for (int[] r : gaps) {
      if (id >= r[0] && id <= r[1]) {
        return true;
      }
    }
    return false;
  }

  /** Throws a checked exception through a method that does not declare it (Netty catches it). */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> void sneaky(Throwable t) throws E {
    throw (E) t;
  }
}

package io.fairway.proxy.http;

import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * What a client sent after a complete request while that one is still being answered: pipelined
 * requests wait here in order. The client is not read meanwhile, so the queue never holds more than
 * one read's worth.
 *
 * <p>Its own class because it owns buffers: whatever happens to the connection, what is queued must
 * be released exactly once.
 */
final class PipelinedRequests {
  // Small first: an idle keep-alive connection holds these; they grow when a request pipelines.
  private final ArrayDeque<Object> queued = new ArrayDeque<>(2);

  void add(Object msg) {
    queued.add(msg);
  }

  boolean isEmpty() {
    return queued.isEmpty();
  }

  /** The oldest message, or {@code null}. */
  Object poll() {
    return queued.poll();
  }

  /**
   * The client's input ended: the incomplete request queued last (if it got as far as a head) is
   * dropped, the complete ones before it stay.
   */
  void dropIncomplete() {
    Object last;
    while ((last = queued.peekLast()) != null && last != StrictRequestDecoder.END) {
      queued.pollLast();
      ReferenceCountUtil.release(last);
      if (last instanceof HttpHead) {
        break;
      }
    }
  }

  /** Releases everything queued: the connection closes. */
  void release() {
    Object o;
    while ((o = queued.poll()) != null) {
      ReferenceCountUtil.release(o);
    }
  }
}

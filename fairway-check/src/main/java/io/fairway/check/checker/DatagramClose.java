package io.fairway.check.checker;

import io.netty.channel.Channel;
import java.util.concurrent.RejectedExecutionException;

/**
 * Closes a datagram channel only after Netty's read loop has let go of its descriptor.
 *
 * <p>Why: Netty's epoll {@code EpollDatagramChannel.epollInReady} (4.2.18) calls {@code recv} in a
 * loop, firing {@code channelRead} after each datagram, and, unlike the stream channels, does not
 * look whether a handler closed the channel before it reads again. A check that closes its channel
 * as soon as the answer is in frees the descriptor number; the loop then reads from that number
 * once more. If any thread opened a socket meanwhile, it got the same number (the kernel hands out
 * the lowest free one), and the event loop reads that socket: it steals its datagrams, and if it is
 * a blocking socket with nothing queued (a JDK socket, a ping socket) the event loop blocks for
 * good, with every check on it. That is the hang CI saw at the harness's shutdown.
 *
 * <p>A task queued on the event loop runs after the I/O batch, when the read loop has returned and
 * met {@code EAGAIN} on the channel's own, still open, socket.
 */
final class DatagramClose {
  private DatagramClose() {}

  /**
   * Closes {@code ch} from a fresh event-loop task; safe to call from any handler, any number of
   * times.
   */
  static void later(Channel ch) {
    try {
      ch.eventLoop().execute(ch::close);
    } catch (RejectedExecutionException e) {
      // The loop is shutting down and closes every channel it still has; closing now cannot race a
      // read.
      ch.close();
    }
  }
}

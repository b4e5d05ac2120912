package io.fairway.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** Streams' flushes in one event-loop turn reach the socket as one, and none is lost. */
class H2FlushesTest {
  /** Counts the flushes that get past the handlers behind it. */
  private static final class Flushes extends ChannelOutboundHandlerAdapter {
    int count;

    @Override
    public void flush(ChannelHandlerContext ctx) {
      count++;
      ctx.flush();
    }
  }

  @Test
  void flushesOutsideAReadInOneTurnBecomeOne() {
    Flushes socket = new Flushes();
    EmbeddedChannel ch = new EmbeddedChannel(socket, H2Flushes.handler());
    // EmbeddedChannel runs the pending tasks on every write that reaches it: the writes first.
    for (int i = 0; i < 10; i++) {
      ch.pipeline().write(Unpooled.wrappedBuffer(new byte[] {(byte) i}));
    }
    for (int i = 0; i < 10; i++) {
      ch.pipeline().flush();
    }
    assertThat(socket.count).isZero();
    ch.runPendingTasks();
    assertThat(socket.count).isEqualTo(1);
    assertThat(ch.outboundMessages()).hasSize(10);
    ch.finishAndReleaseAll();
  }

  @Test
  void aBusyConnectionIsFlushedEveryMaxMergedFlushes() {
    Flushes socket = new Flushes();
    EmbeddedChannel ch = new EmbeddedChannel(socket, H2Flushes.handler());
    ch.pipeline().fireChannelRead(Unpooled.EMPTY_BUFFER); // a read in progress
    for (int i = 0; i < H2Flushes.MAX_MERGED * 2; i++) {
      ch.pipeline().flush();
    }
    assertThat(socket.count).isEqualTo(2);
    ch.finishAndReleaseAll();
  }

  @Test
  void closingFlushesWhatIsPendingFirst() {
    Flushes socket = new Flushes();
    EmbeddedChannel ch = new EmbeddedChannel(socket, H2Flushes.handler());
    ch.pipeline().writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
    ch.close();
    assertThat(socket.count).isEqualTo(1);
    assertThat(ch.outboundMessages()).hasSize(1);
    ch.finishAndReleaseAll();
  }
}

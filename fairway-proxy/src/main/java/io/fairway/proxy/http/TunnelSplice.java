package io.fairway.proxy.http;

import io.fairway.proxy.KeptEpollChannels;
import io.fairway.proxy.l4.Relay;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * Turns an HTTP/1.1 client connection and its backend connection into a byte tunnel after a 101:
 * the HTTP handlers leave both pipelines and an L4 {@link Relay} takes over each direction, with
 * the L4 relay's backpressure and half-close. What each side sent after its HTTP message (held by
 * the decoders) goes first.
 */
final class TunnelSplice {
  private TunnelSplice() {}

  static void splice(
      HttpFrontend frontend,
      Channel client,
      StrictRequestDecoder decoder,
      Channel b,
      boolean inputShutdown) {
    // Half-close both ways, as in L4; either side may then have to be written to after its FIN.
    b.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    KeptEpollChannels.keep(b);
    KeptEpollChannels.keep(client);
    ChannelPipeline bp = b.pipeline();
    bp.addLast(new HttpFrontend.ReadMarker(frontend), new Relay(client, -1));
    bp.remove(IdleStateHandler.class);
    bp.remove(HttpBackendHandler.class);
    // Removed last, so what it holds (the backend's first tunnelled bytes, which may have come
    // with the 101) goes to the relay, behind the 101.
    bp.remove(ResponseDecoder.class);
    ByteBuf atEof = decoder.takeHeldAtEof();
    ChannelPipeline cp = client.pipeline();
    cp.addLast(new Relay(b, -1));
    cp.remove(frontend);
    cp.remove(decoder); // likewise: what the client sent after its request goes to the backend
    if (atEof != null) {
      b.write(atEof, b.voidPromise());
    }
    client.flush();
    if (inputShutdown && b instanceof DuplexChannel d) {
      b.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> d.shutdownOutput());
    } else {
      b.flush();
      if (b.isWritable()) {
        client.config().setAutoRead(true);
      }
    }
    b.config().setAutoRead(client.isWritable());
  }
}

package io.fairway.proxy.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * The close after an error page, as nginx does it: closing with unread request bytes in the socket
 * makes the kernel send a reset that can destroy the page before the client reads it. So: send the
 * page, half-close, and drain (discard) what the client still sends for a moment.
 *
 * <p>A helper of its own because it is about the socket, not about HTTP: the connection only
 * decides that it closes and with which page.
 */
final class LingeringClose {
  private static final long LINGER_MS = 1000;

  private LingeringClose() {}

  /**
   * Sends {@code page}, then closes {@code client}; {@code inputShutdown}: the client sends nothing
   * more, so there is nothing to linger for.
   */
  static void send(Channel client, ByteBuf page, boolean inputShutdown) {
    if (inputShutdown) {
      client.writeAndFlush(page).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    client.config().setAutoRead(true);
    client
        .writeAndFlush(page)
        .addListener(
            f -> {
              if (f.isSuccess() && client instanceof SocketChannel sc) {
                sc.shutdownOutput();
                client.eventLoop().schedule(() -> client.close(), LINGER_MS, TimeUnit.MILLISECONDS);
              } else {
                client.close();
              }
            });
  }
}

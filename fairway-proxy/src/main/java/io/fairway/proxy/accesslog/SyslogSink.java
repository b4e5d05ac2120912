package io.fairway.proxy.accesslog;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainDatagramPacket;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Access log lines as syslog messages (BSD format, as glibc's {@code syslog(3)} sends them,
 * facility local7 and severity info as nginx's {@code access_log syslog:}), one datagram each, to
 * the local socket or a UDP server. A message longer than {@value #MAX_BYTES} bytes is cut there: a
 * datagram has a size limit and syslog daemons cut earlier.
 */
final class SyslogSink implements AccessLogWriter.Sink {
  /** local7 (23) * 8 + info (6). */
  private static final int PRI = 23 * 8 + 6;

  static final int MAX_BYTES = 16 * 1024;

  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("MMM ppd HH:mm:ss", Locale.ROOT);

  /**
   * The JDK has no Unix datagram socket; Netty's epoll transport does. One loop for every syslog
   * writer, created at the first and kept for the JVM's life (its thread is a daemon).
   */
  private static final class UnixLoop {
    static final EventLoopGroup GROUP =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("access-log-syslog", true), EpollIoHandler.newFactory());
  }

  private final SyslogTarget target;
  private final String tag = "fairway[" + ProcessHandle.current().pid() + "]: ";
  private @Nullable DatagramChannel udp;
  private @Nullable Channel unix;

  SyslogSink(SyslogTarget target) {
    this.target = target;
  }

  @Override
  public void write(List<String> lines) throws IOException {
    String stamp = ZonedDateTime.now(ZoneId.systemDefault()).format(STAMP);
    for (String line : lines) {
      byte[] m = message(stamp, line);
      if (target.udp() != null) {
        if (udp == null) {
          udp = DatagramChannel.open().connect(target.udp());
        }
        udp.write(ByteBuffer.wrap(m));
      } else {
        sendUnix(m);
      }
    }
  }

  private void sendUnix(byte[] m) throws IOException {
    DomainSocketAddress to = new DomainSocketAddress(target.socket());
    if (unix == null) {
      ChannelFuture reg =
          new Bootstrap()
              .group(UnixLoop.GROUP)
              .channel(EpollDomainDatagramChannel.class)
              .handler(new ChannelInboundHandlerAdapter())
              .register()
              .awaitUninterruptibly();
      if (!reg.isSuccess()) {
        throw new IOException("cannot open a datagram socket: " + reg.cause());
      }
      unix = reg.channel();
    }
    ChannelFuture sent =
        unix.writeAndFlush(new DomainDatagramPacket(Unpooled.wrappedBuffer(m), to))
            .awaitUninterruptibly();
    if (!sent.isSuccess()) {
      throw new IOException(target.socket() + ": " + sent.cause().getMessage());
    }
  }

  private byte[] message(String stamp, String line) {
    byte[] m = ("<" + PRI + ">" + stamp + " " + tag + line).getBytes(StandardCharsets.UTF_8);
    return m.length <= MAX_BYTES ? m : java.util.Arrays.copyOf(m, MAX_BYTES);
  }

  @Override
  public void close() {
    try {
      if (udp != null) {
        udp.close();
      }
    } catch (IOException e) {
      // closing a datagram socket does not fail in a way worth reporting
    }
    udp = null;
    if (unix != null) {
      unix.close().awaitUninterruptibly();
      unix = null;
    }
  }

  @Override
  public String name() {
    return target.toString();
  }
}

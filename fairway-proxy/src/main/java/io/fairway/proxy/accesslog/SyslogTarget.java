package io.fairway.proxy.accesslog;

import java.net.InetSocketAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where {@code access_log syslog} sends its lines: the local syslog socket ({@code /dev/log}, which
 * journald and rsyslog read) or a syslog server over UDP. Chosen by the system property {@value
 * #PROPERTY}: an absolute socket path, or {@code udp:HOST:PORT}.
 *
 * @param socket the local datagram socket's path, or null
 * @param udp the UDP server's address, or null
 */
public record SyslogTarget(@Nullable String socket, @Nullable InetSocketAddress udp) {
  /** The system property that chooses the target. */
  public static final String PROPERTY = "fairway.accesslog.syslog";

  /** The local syslog socket. */
  public static final SyslogTarget DEV_LOG = new SyslogTarget("/dev/log", null);

  public SyslogTarget {
    if ((socket == null) == (udp == null)) {
      throw new IllegalArgumentException("a syslog target is a socket path or a UDP address");
    }
  }

  /**
   * The target {@value #PROPERTY} names, {@link #DEV_LOG} without it.
   *
   * @throws IllegalStateException the property names neither (as for {@code
   *     fairway.proxy.transport}, the data plane does not start)
   */
  public static SyslogTarget fromSystem() {
    String v = System.getProperty(PROPERTY);
    try {
      return v == null || v.isBlank() ? DEV_LOG : parse(v.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /**
   * {@code /path/of/socket} or {@code udp:HOST:PORT} ({@code udp:[::1]:514} for IPv6).
   *
   * @throws IllegalArgumentException naming the property and what is wrong
   */
  public static SyslogTarget parse(String v) {
    if (v.startsWith("/")) {
      return new SyslogTarget(v, null);
    }
    if (v.startsWith("udp:")) {
      String hp = v.substring(4);
      int colon = hp.lastIndexOf(':');
      if (colon > 0) {
        String host = hp.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
          host = host.substring(1, host.length() - 1);
        }
        try {
          int port = Integer.parseInt(hp.substring(colon + 1));
          if (port > 0 && port < 65536) {
            return new SyslogTarget(null, new InetSocketAddress(host, port));
          }
        } catch (NumberFormatException e) {
          // reported below
        }
      }
    }
    throw new IllegalArgumentException(
        "-D" + PROPERTY + "=" + v + ": neither a socket path nor udp:HOST:PORT");
  }

  /** A new sink to this target, for one writer's thread. */
  AccessLogWriter.Sink sink() {
    return new SyslogSink(this);
  }

  @Override
  public String toString() {
    return socket != null
        ? "syslog " + socket
        : "syslog udp:" + Objects.requireNonNull(udp).getHostString() + ":" + udp.getPort();
  }
}

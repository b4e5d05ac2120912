package io.fairway.check.checker;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.CheckSource;
import io.fairway.check.spec.PingCheckSpec;
import io.fairway.os.LibC;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PING_CHECK over ICMP "ping sockets" ({@code SOCK_DGRAM, IPPROTO_ICMP} or {@code IPPROTO_ICMPV6}):
 * one socket per address family and {@link CheckSource}, shared by every ping checker that leaves
 * from there, each with one receiver thread matching echo replies to requests by sequence number.
 * No raw socket, no {@code ping} process per check: the kernel fills in the ICMP id and checksum
 * and hands us only our own replies.
 *
 * <p>Ping sockets of both families are allowed only to groups in {@code net.ipv4.ping_group_range},
 * which is empty on many distributions. Like keepalived, we widen it to include our group if we may
 * (we run as root), and otherwise refuse PING_CHECK at load with a message that says so.
 *
 * <p>A source the kernel refuses (a {@code bindto} address we do not have, a missing {@code
 * bind_if}, a {@code fwmark} without CAP_NET_ADMIN) is not a load error: the interface may come up
 * later. Every attempt fails with the kernel's reason until the socket can be opened.
 */
final class Pinger implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Pinger.class);
  private static final int AF_INET = 2;
  private static final int AF_INET6 = 10;
  private static final int IPPROTO_ICMP = 1;
  private static final int IPPROTO_ICMPV6 = 58;
  private static final int EACCES = 13;
  private static final int SHUT_RDWR = 2;
  private static final int ICMP_ECHO = 8;
  private static final int ICMP_ECHOREPLY = 0;
  private static final int ICMPV6_ECHO_REQUEST = 128;
  private static final int ICMPV6_ECHO_REPLY = 129;
  private static final int SOCKADDR_IN6 = 28;
  private static final Path GROUP_RANGE = Path.of("/proc/sys/net/ipv4/ping_group_range");

  private record Key(boolean v6, CheckSource source) {}

  private record Pending(
      InetAddress target,
      long sentAt,
      long deadline,
      Consumer<CheckResult> done,
      Duration timeout) {}

  private final Map<Key, Socket> sockets = new HashMap<>();
  private boolean closed;

  synchronized Checker checker(PingCheckSpec spec, String where) {
    boolean v6 = spec.target() instanceof Inet6Address;
    InetAddress bind = spec.source().address();
    if (bind != null && (bind instanceof Inet6Address) != v6) {
      throw new CheckConfigException(
          where + ": bindto " + bind.getHostAddress() + " is not of the target's address family");
    }
    if (v6
        && spec.target().isLinkLocalAddress()
        && ((Inet6Address) spec.target()).getScopeId() == 0
        && spec.source().bindInterface() == null) {
      throw new CheckConfigException(where + ": a link-local target needs bind_if");
    }
    Key key = new Key(v6, spec.source());
    if (!sockets.containsKey(key)) {
      checkAllowed(v6, where);
      try {
        socket(key);
      } catch (SocketOptions.SourceException e) {
        log.warn("{}: {}; every ping fails until it can be opened", where, e.getMessage());
      }
    }
    return new Checker() {
      @Override
      public void check(Consumer<CheckResult> done) {
        Socket s;
        try {
          s = socket(key);
        } catch (SocketOptions.SourceException e) {
          done.accept(
              CheckResult.fail(
                  Objects.requireNonNull(e.getMessage(), "a SourceException always says why")));
          return;
        }
        s.send(spec, done);
      }

      @Override
      public Duration deadline() {
        return spec.timing().connectTimeout().plusSeconds(1);
      }
    };
  }

  private synchronized Socket socket(Key key) {
    Socket s = sockets.get(key);
    if (s == null) {
      if (closed) {
        throw new SocketOptions.SourceException("ping sockets are closed");
      }
      s = new Socket(key);
      sockets.put(key, s);
    }
    return s;
  }

  /**
   * Fails at load if ping sockets of this family are not allowed to us at all (ping_group_range).
   */
  private static void checkAllowed(boolean v6, String where) {
    try {
      LibC.Quiet.close(openSocket(v6));
    } catch (LastErrorException e) {
      if (e.getErrorCode() == EACCES && widenGroupRange()) {
        try {
          LibC.Quiet.close(openSocket(v6));
          return;
        } catch (LastErrorException again) {
          e = again;
        }
      }
      throw new CheckConfigException(
          where
              + ": cannot open an ICMP"
              + (v6 ? "v6" : "")
              + " ping socket ("
              + SocketOptions.reason(e.getErrorCode())
              + "); allow our group in net.ipv4.ping_group_range");
    } catch (LinkageError e) {
      throw new CheckConfigException(
          where + ": ICMP ping sockets need Linux libc: " + e.getMessage());
    }
  }

  private static int openSocket(boolean v6) {
    int s =
        v6
            ? LibC.socket(AF_INET6, LibC.SOCK_DGRAM, IPPROTO_ICMPV6)
            : LibC.socket(AF_INET, LibC.SOCK_DGRAM, IPPROTO_ICMP);
    Memory tv = new Memory(16);
    tv.setLong(0, 0);
    tv.setLong(8, 100_000); // 100 ms: how often the receiver wakes to expire unanswered requests
    try {
      LibC.setsockopt(s, LibC.SOL_SOCKET, LibC.SO_RCVTIMEO, tv, 16);
    } catch (LastErrorException e) {
      LibC.Quiet.close(s);
      throw e;
    }
    return s;
  }

  private static boolean widenGroupRange() {
    try {
      int gid = LibC.getegid();
      String line;
      // Not Files.readString: it trusts procfs's size of 0 and returns a truncated read.
      try (var r = Files.newBufferedReader(GROUP_RANGE)) {
        line = r.readLine();
      }
      String[] cur = line.trim().split("\\s+");
      long lo = Long.parseLong(cur[0]);
      long hi = Long.parseLong(cur[1]);
      long newLo = lo > hi ? gid : Math.min(lo, gid);
      long newHi = lo > hi ? gid : Math.max(hi, gid);
      Files.writeString(GROUP_RANGE, newLo + " " + newHi + "\n");
      log.info("widened net.ipv4.ping_group_range to {} {} for PING_CHECK", newLo, newHi);
      return true;
    } catch (IOException | RuntimeException e) {
      log.warn("cannot widen net.ipv4.ping_group_range: {}", e.toString());
      return false;
    }
  }

  /**
   * A {@code struct sockaddr_in} or {@code sockaddr_in6} for {@code a}, port (ping: echo id) {@code
   * port}.
   */
  private static Memory sockaddr(InetAddress a, int port, int scopeId) {
    byte[] addr = a.getAddress();
    Memory sa = new Memory(SOCKADDR_IN6);
    sa.clear();
    sa.setShort(0, (short) (addr.length == 16 ? AF_INET6 : AF_INET));
    sa.setByte(2, (byte) (port >> 8));
    sa.setByte(3, (byte) port);
    if (addr.length == 16) {
      sa.write(8, addr, 0, 16);
      sa.setInt(24, scopeId);
    } else {
      sa.write(4, addr, 0, 4);
    }
    return sa;
  }

  private static int scopeId(InetAddress target, CheckSource source) {
    if (target instanceof Inet6Address v6 && v6.isLinkLocalAddress()) {
      if (v6.getScopeId() != 0) {
        return v6.getScopeId();
      }
      try {
        NetworkInterface nif = NetworkInterface.getByName(source.bindInterface());
        if (nif != null) {
          return nif.getIndex();
        }
      } catch (SocketException e) {
        // The send then fails with the kernel's reason.
      }
    }
    return 0;
  }

  /** One ping socket, its receiver thread and its outstanding requests. */
  private static final class Socket {
    private final boolean v6;
    private final CheckSource source;
    private final int fd;
    private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicInteger sequence = new AtomicInteger();
    private final Thread receiver;
    private volatile boolean closed;

    Socket(Key key) {
      this.v6 = key.v6();
      this.source = key.source();
      int s;
      try {
        s = openSocket(v6);
      } catch (LastErrorException e) {
        throw new SocketOptions.SourceException(
            "cannot open a ping socket: " + SocketOptions.reason(e.getErrorCode()));
      }
      try {
        SocketOptions.apply(s, source);
        if (source.address() != null || source.port() != 0) {
          InetAddress bind = source.address();
          if (bind == null) {
            bind = InetAddress.getByAddress(new byte[v6 ? 16 : 4]);
          }
          try {
            LibC.bind(s, sockaddr(bind, source.port(), 0), v6 ? SOCKADDR_IN6 : 16);
          } catch (LastErrorException e) {
            String host =
                bind instanceof Inet6Address v6
                    ? "[" + v6.getHostAddress() + "]"
                    : bind.getHostAddress();
            throw new SocketOptions.SourceException(
                "cannot bind to "
                    + host
                    + ":"
                    + source.port()
                    + ": "
                    + SocketOptions.reason(e.getErrorCode()));
          }
        }
      } catch (RuntimeException | java.net.UnknownHostException e) {
        LibC.Quiet.close(s);
        if (e instanceof SocketOptions.SourceException se) {
          throw se;
        }
        throw new IllegalStateException(e);
      }
      this.fd = s;
      this.receiver =
          new Thread(this::receive, "fairway-ping" + (v6 ? "6" : "") + source.describe());
      receiver.setDaemon(true);
      receiver.start();
    }

    void send(PingCheckSpec spec, Consumer<CheckResult> done) {
      Duration timeout = spec.timing().connectTimeout();
      int seq = sequence.incrementAndGet() & 0xffff;
      long now = System.nanoTime();
      InetAddress target = spec.target();
      pending.put(seq, new Pending(target, now, now + timeout.toNanos(), done, timeout));
      Memory pkt = new Memory(16);
      pkt.clear();
      // echo request; the kernel sets id and checksum
      pkt.setByte(0, (byte) (v6 ? ICMPV6_ECHO_REQUEST : ICMP_ECHO));
      pkt.setByte(6, (byte) (seq >> 8));
      pkt.setByte(7, (byte) seq);
      pkt.setLong(8, now);
      Memory sa = sockaddr(target, 0, scopeId(target, source));
      try {
        LibC.sendto(fd, pkt, 16, 0, sa, v6 ? SOCKADDR_IN6 : 16);
      } catch (LastErrorException e) {
        Pending p = pending.remove(seq);
        if (p != null) {
          p.done()
              .accept(
                  CheckResult.fail(
                      "cannot send echo request: " + SocketOptions.reason(e.getErrorCode())));
        }
      }
    }

    private void receive() {
      Memory buf = new Memory(1500);
      Memory from = new Memory(SOCKADDR_IN6);
      Memory fromLen = new Memory(4);
      int reply = v6 ? ICMPV6_ECHO_REPLY : ICMP_ECHOREPLY;
      while (!closed) {
        fromLen.setInt(0, SOCKADDR_IN6);
        long n = LibC.Quiet.recvfrom(fd, buf, 1500, 0, from, fromLen);
        if (n >= 8 && (buf.getByte(0) & 0xff) == reply) {
          int seq = ((buf.getByte(6) & 0xff) << 8) | (buf.getByte(7) & 0xff);
          Pending p = pending.get(seq);
          byte[] sender = v6 ? from.getByteArray(8, 16) : from.getByteArray(4, 4);
          if (p != null
              && Arrays.equals(p.target().getAddress(), sender)
              && pending.remove(seq, p)) {
            long micros = (System.nanoTime() - p.sentAt()) / 1000;
            p.done().accept(CheckResult.ok("echo reply in " + micros / 1000.0 + " ms"));
          }
        }
        expire();
      }
    }

    private void expire() {
      long now = System.nanoTime();
      for (Iterator<Map.Entry<Integer, Pending>> it = pending.entrySet().iterator();
          it.hasNext(); ) {
        Pending p = it.next().getValue();
        if (now - p.deadline() > 0) {
          it.remove();
          p.done()
              .accept(CheckResult.fail("no echo reply within " + p.timeout().toMillis() + " ms"));
        }
      }
    }

    void close() {
      closed = true;
      // Wakes a receiver blocked in recvfrom at once (on a datagram socket the call reports
      // ENOTCONN, but
      // it does wake the reader) instead of at the next SO_RCVTIMEO tick.
      LibC.Quiet.shutdown(fd, SHUT_RDWR);
      try {
        receiver.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (receiver.isAlive()) {
        // Stuck in a result callback. Closing now would free the number while it still calls
        // recvfrom
        // on it, and the next socket opened anywhere in the process would be read by this thread
        // (datagrams stolen, or blocked forever on a blocking socket). Leaking one descriptor is
        // better.
        log.warn("ping receiver {} did not stop; leaving its socket open", receiver.getName());
        return;
      }
      LibC.Quiet.close(fd);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (Socket s : sockets.values()) {
      s.close();
    }
    sockets.clear();
  }
}

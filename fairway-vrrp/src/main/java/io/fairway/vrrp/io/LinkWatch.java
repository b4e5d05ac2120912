package io.fairway.vrrp.io;

import io.fairway.os.LibC;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Interfaces as the speaker polls them: every poll reads the interface's flags (one {@code
 * SIOCGIFFLAGS} ioctl), and only when they changed, or once a second, the whole {@link Link}
 * (index, MAC, addresses), which the JDK reads by enumerating every interface and address of the
 * machine: about 0.25 ms of CPU with 100 virtual addresses on the interface, five times a second,
 * measured; the ioctl costs microseconds. Up/down is seen within one poll as before; a changed
 * source address within a second.
 *
 * <p>Not thread safe: the speaker's event thread uses it.
 */
public final class LinkWatch implements Closeable {
  private static final long FULL_READ_NANOS = 1_000_000_000L;

  private record Entry(Link link, int flags, long readAt) {}

  private final int fd;
  private final Map<String, Entry> cache = new HashMap<>();
  private final byte[] ifreq = new byte[40];

  private LinkWatch(int fd) {
    this.fd = fd;
  }

  public static LinkWatch open() throws IOException {
    try {
      return new LinkWatch(LibC.socket(Sys.AF_INET, Sys.SOCK_DGRAM | LibC.SOCK_CLOEXEC, 0));
    } catch (com.sun.jna.LastErrorException e) {
      throw new IOException("a socket for interface flags: " + VrrpSocket.errno(e));
    }
  }

  /**
   * The interface now, or empty if it does not exist.
   *
   * @param exclude addresses that are not source candidates (the virtual addresses)
   * @param now the caller's clock, nanoseconds
   */
  public Optional<Link> get(String name, Collection<InetAddress> exclude, long now) {
    Optional<Integer> flags = flags(name);
    if (flags.isEmpty()) {
      cache.remove(name);
      return Optional.empty();
    }
    Entry e = cache.get(name);
    if (e == null || e.flags() != flags.get() || now - e.readAt() >= FULL_READ_NANOS) {
      Optional<Link> l = Link.read(name, exclude);
      if (l.isEmpty()) {
        cache.remove(name);
        return l;
      }
      e = new Entry(l.get(), flags.get(), now);
      cache.put(name, e);
    }
    return Optional.of(e.link());
  }

  /** Forgets every interface: the next {@link #get} reads it whole (a reload changed the VIPs). */
  public void forget() {
    cache.clear();
  }

  private Optional<Integer> flags(String name) {
    byte[] b = name.getBytes(StandardCharsets.US_ASCII);
    java.util.Arrays.fill(ifreq, (byte) 0);
    System.arraycopy(b, 0, ifreq, 0, Math.min(15, b.length));
    if (LibC.Quiet.ioctl(fd, Sys.SIOCGIFFLAGS, ifreq) < 0) {
      return Optional.empty(); // ENODEV: no such interface (any other error reads as missing too)
    }
    // struct ifreq: the name (16 bytes), then a short of flags (little-endian on x86_64/aarch64)
    return Optional.of((ifreq[16] & 0xff) | (ifreq[17] & 0xff) << 8);
  }

  @Override
  public void close() {
    LibC.close(fd);
  }
}

package io.fairway.cli;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Three network namespaces on one segment: routers {@code vrrpops-XXXX-a} (eth0 10.99.0.1/24) and
 * {@code -b} (10.99.0.2/24), each joined by a veth pair to a bridge in the client namespace {@code
 * -c} (br0 10.99.0.3/24, where the clients and the backend run). Multicast snooping is off so VRRP
 * adverts reach both routers. Never the host's network; removed on close, with every process still
 * inside.
 */
final class BridgedNetns implements AutoCloseable {
  final String a;
  final String b;
  final String c;

  private BridgedNetns(String tag) {
    this.a = "vrrpops-" + tag + "-a";
    this.b = "vrrpops-" + tag + "-b";
    this.c = "vrrpops-" + tag + "-c";
  }

  static BridgedNetns create() throws IOException {
    String tag = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xffff));
    BridgedNetns n = new BridgedNetns(tag);
    try {
      for (String ns : List.of(n.a, n.b, n.c)) {
        Netns.sh("ip", "netns", "add", ns);
        Netns.sh(
            "ip",
            "netns",
            "exec",
            ns,
            "sysctl",
            "-qw",
            "net.ipv6.conf.all.accept_dad=0",
            "net.ipv6.conf.default.accept_dad=0");
        Netns.sh("ip", "-n", ns, "link", "set", "lo", "up");
      }
      Netns.sh("ip", "-n", n.c, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0");
      Netns.sh("ip", "-n", n.c, "addr", "add", "10.99.0.3/24", "dev", "br0");
      Netns.sh("ip", "-n", n.c, "link", "set", "br0", "up");
      String[][] sides = {{n.a, "10.99.0.1/24", "a"}, {n.b, "10.99.0.2/24", "b"}};
      for (String[] s : sides) {
        String inner = "vo" + tag + s[2];
        String outer = "vo" + tag + s[2] + "p";
        Netns.sh("ip", "-n", n.c, "link", "add", outer, "type", "veth", "peer", "name", inner);
        Netns.sh("ip", "-n", n.c, "link", "set", inner, "netns", s[0]);
        Netns.sh("ip", "-n", n.c, "link", "set", outer, "master", "br0");
        Netns.sh("ip", "-n", n.c, "link", "set", outer, "up");
        Netns.sh("ip", "-n", s[0], "link", "set", inner, "name", "eth0");
        Netns.sh("ip", "-n", s[0], "addr", "add", s[1], "dev", "eth0");
        Netns.sh("ip", "-n", s[0], "link", "set", "eth0", "up");
      }
    } catch (IOException | RuntimeException e) {
      n.close();
      throw e;
    }
    return n;
  }

  /** The two router namespaces as {@link Netns}'s monitor expects them. */
  Netns routers() {
    return Netns.of(a, b);
  }

  @Override
  public void close() {
    for (String ns : List.of(a, b, c)) {
      try {
        Netns.killAll(ns, "KILL");
      } catch (IOException e) {
        // the namespace may not exist
      }
      try {
        Netns.sh("ip", "netns", "del", ns);
      } catch (IOException e) {
        // already gone
      }
    }
  }
}

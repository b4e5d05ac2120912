package io.fairway.config.model;

import java.net.InetAddress;
import java.util.List;

/**
 * Builds the real server a {@code real_server_dns} answer stands for from the block's template: the
 * same settings and checkers, aimed at the answer's address and port.
 */
public final class DnsMember {
  private DnsMember() {}

  /**
   * The real server for one answer.
   *
   * @param block the block that asked
   * @param address the answer's address
   * @param port the answer's port (SRV) or the block's (A/AAAA)
   * @param name its name and ident: the SRV target and port, or the address and port, so that it is
   *     the same on every node whatever order the answers came in
   * @param srvWeight the SRV weight, used under {@code weight srv}
   */
  public static RealServer of(
      DnsDiscovery block, InetAddress address, int port, String name, int srvWeight) {
    return of(block, address, port, name, srvWeight, false);
  }

  /**
   * The real server for one answer, at weight 0 when {@code drained}: a server that left the answer
   * keeps its connections but gets no new ones until it is removed.
   */
  public static RealServer of(
      DnsDiscovery block,
      InetAddress address,
      int port,
      String name,
      int srvWeight,
      boolean drained) {
    return of(block, address, port, name, srvWeight, drained, 0);
  }

  /**
   * The real server for one answer, in a backup tier: {@code tier} > 0 for a higher SRV priority,
   * kept out of the table while a server of a lower tier is up.
   */
  public static RealServer of(
      DnsDiscovery block,
      InetAddress address,
      int port,
      String name,
      int srvWeight,
      boolean drained,
      int tier) {
    RealServer t = block.template();
    // DR and TUN keep the service's port (keepalived's rule); everything else takes the answer's.
    boolean forced = t.forwarding().method().isKernel() && t.id().port() != block.placeholderPort();
    int idPort = forced ? t.id().port() : port;
    InetAddress placeholder = t.id().address();
    int placeholderPort = block.placeholderPort();
    List<HealthCheck> checkers =
        t.checkers().stream()
            .map(c -> retarget(c, placeholder, placeholderPort, address, port))
            .toList();
    // The template's settings (send_proxy and tls among them) hold for every address the name
    // resolves to.
    return t.toBuilder()
        .location(block.location())
        .id(new RealServerId(address, idPort))
        .name(name)
        .ident(name)
        .weight(drained ? 0 : block.srvWeight() ? Math.max(1, srvWeight) : t.weight())
        .checkers(checkers)
        .checkPort(port)
        .tier(tier)
        .build();
  }

  private static HealthCheck retarget(
      HealthCheck c, InetAddress from, int fromPort, InetAddress to, int toPort) {
    if (c instanceof TcpCheck t) {
      return new TcpCheck(t.location(), t.timing(), aim(t.endpoint(), from, fromPort, to, toPort));
    }
    if (c instanceof HttpCheck h) {
      return new HttpCheck(
          h.location(),
          h.timing(),
          aim(h.endpoint(), from, fromPort, to, toPort),
          h.ssl(),
          h.httpVersion(),
          h.urls(),
          h.fastRecovery(),
          h.enableSni(),
          h.sniName(),
          h.verifyCert(),
          h.caFile());
    }
    if (c instanceof DnsCheck d) {
      return new DnsCheck(
          d.location(),
          d.timing(),
          aim(d.endpoint(), from, fromPort, to, toPort),
          d.type(),
          d.name());
    }
    if (c instanceof SmtpCheck s) {
      return new SmtpCheck(
          s.location(), s.timing(), aim(s.endpoint(), from, fromPort, to, toPort), s.heloName());
    }
    if (c instanceof UdpCheck u) {
      return new UdpCheck(
          u.location(),
          u.timing(),
          aim(u.endpoint(), from, fromPort, to, toPort),
          u.payload(),
          u.requireReply(),
          u.minReplyLength(),
          u.maxReplyLength());
    }
    if (c instanceof PingCheck p) {
      return new PingCheck(p.location(), p.timing(), aim(p.endpoint(), from, fromPort, to, toPort));
    }
    // MISC_CHECK, FILE_CHECK and BFD_CHECK have no endpoint.
    return c;
  }

  private static Endpoint aim(
      Endpoint e, InetAddress from, int fromPort, InetAddress to, int toPort) {
    if (!e.address().equals(from)) {
      return e; // connect_ip was given: it stays
    }
    int port = e.port() == fromPort ? toPort : e.port();
    return new Endpoint(to, port, e.bindTo(), e.bindPort(), e.bindInterface(), e.fwmark());
  }
}

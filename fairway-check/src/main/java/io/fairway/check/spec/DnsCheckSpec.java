package io.fairway.check.spec;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * {@code DNS_CHECK}: a UDP query (recursion desired) for {@code name}/{@code type}; success is a
 * reply with the same id and RCODE NOERROR. keepalived does not look at the answer count, and
 * neither do we.
 *
 * @param type DNS record type name (A, NS, CNAME, SOA, MX, TXT, AAAA, ...); keepalived's default is
 *     SOA
 * @param name the query name; keepalived's default is the root {@code "."}
 * @param source where the query leaves from ({@code bindto}, {@code bind_port}, {@code bind_if},
 *     {@code fwmark})
 */
public record DnsCheckSpec(
    InetSocketAddress target, CheckSource source, String type, String name, CheckTiming timing)
    implements CheckSpec {
  public DnsCheckSpec {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(timing, "timing");
    source = source == null ? CheckSource.NONE : source;
    type = type == null ? "SOA" : type;
    name = name == null ? "." : name;
  }

  /** A query from wherever the kernel chooses. */
  public DnsCheckSpec(InetSocketAddress target, String type, String name, CheckTiming timing) {
    this(target, CheckSource.NONE, type, name, timing);
  }

  @Override
  public String describe() {
    return "DNS_CHECK " + Targets.format(target) + source.describe() + " " + type + " " + name;
  }
}

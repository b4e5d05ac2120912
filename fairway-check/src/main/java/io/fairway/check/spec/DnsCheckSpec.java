package io.fairway.check.spec;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * {@code DNS_CHECK}: a UDP query (recursion desired) for {@code name}/{@code type}; success is a reply with the
 * same id and RCODE NOERROR. keepalived does not look at the answer count, and neither do we.
 *
 * @param type DNS record type name (A, NS, CNAME, SOA, MX, TXT, AAAA, ...); keepalived's default is SOA
 * @param name the query name; keepalived's default is the root {@code "."}
 */
public record DnsCheckSpec(InetSocketAddress target, String type, String name, CheckTiming timing)
        implements CheckSpec {
    public DnsCheckSpec {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(timing, "timing");
        type = type == null ? "SOA" : type;
        name = name == null ? "." : name;
    }

    @Override
    public String describe() {
        return "DNS_CHECK " + Targets.format(target) + " " + type + " " + name;
    }
}

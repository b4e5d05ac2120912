package io.fairway.config;

import io.fairway.config.model.DnsDiscovery;
import io.fairway.config.model.DnsDiscovery.RecordType;
import io.fairway.config.model.base.Addresses;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a {@code real_server_dns} block back for {@code check-config --dump}: its own keywords,
 * then its template as {@link RealServerWriter} writes a real_server's body, so both stay one
 * format. The template's checkers keep {@code connect_ip} of the unspecified address (and for SRV
 * {@code connect_port} {@value DnsDiscovery#SRV_PLACEHOLDER_PORT}), which reads back as "the
 * discovered server".
 */
final class DnsBlockWriter {
  private static final String IN = "    ";

  private DnsBlockWriter() {}

  /**
   * The block's lines, unindented.
   *
   * @param d the block
   * @param templateText its template as a real_server block, first line the header
   */
  static List<String> lines(DnsDiscovery d, String templateText) {
    List<String> body = templateText.lines().toList();
    List<String> out = new ArrayList<>();
    out.add("real_server_dns " + d.name() + " {");
    out.add(IN + "type " + d.type());
    if (d.type() != RecordType.SRV) {
      out.add(IN + "port " + d.port());
    }
    d.nameservers()
        .forEach(
            ns -> out.add(IN + "nameserver " + Addresses.format(ns.address()) + " " + ns.port()));
    out.add(IN + "refresh " + DumpText.time(d.refresh()));
    out.add(IN + "hold " + DumpText.time(d.hold()));
    out.add(IN + "max_servers " + d.maxServers());
    for (String l : body.subList(1, body.size())) {
      if (d.srvWeight() && l.startsWith(IN + "weight ")) {
        out.add(IN + "weight srv");
      } else {
        out.add(l);
      }
    }
    return out;
  }
}

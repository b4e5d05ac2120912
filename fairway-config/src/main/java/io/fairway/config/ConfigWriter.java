package io.fairway.config;

import static io.fairway.config.DumpText.q;

import io.fairway.config.model.Config;
import io.fairway.config.model.GroupEntry;
import io.fairway.config.model.ShardParam;
import io.fairway.config.model.SslContext;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerGroup;
import io.fairway.config.model.base.Addresses;

/**
 * Prints a {@link Config} as keepalived.conf text with every effective value spelled out, so an
 * operator sees exactly what Fairway will do (and parsing it back gives the same model).
 *
 * <p>Each block has its writer, as each has its parser; this class writes the file's order and the
 * small top-level blocks ({@code SSL}, {@code track_file}, {@code virtual_server_group}).
 */
final class ConfigWriter {
  private final DumpText out = new DumpText();

  String write(Config c) {
    out.line("# Effective configuration written by fairway check-config --dump.");
    out.line("# Includes, definitions and repeaters are expanded; defaults are explicit.");
    new GlobalDefsWriter(out).write(c.globalDefs(), c.vrrp().globals(), c.vrrp().syncDaemon());
    c.ssl().ifPresent(this::ssl);
    for (TrackFile t : c.trackFiles()) {
      trackFile(t);
    }
    for (VirtualServerGroup g : c.groups()) {
      group(g);
    }
    DirectorWriter directors = new DirectorWriter(out);
    for (ShardParam p : c.shardParams()) {
      directors.shardParam(p);
    }
    VirtualServerWriter virtualServers = new VirtualServerWriter(out);
    for (VirtualServer vs : c.virtualServers()) {
      virtualServers.write(vs);
    }
    new VrrpWriter(out).write(c.vrrp());
    return out.text();
  }

  private void ssl(SslContext s) {
    out.open("SSL");
    s.password().ifPresent(p -> out.line("password " + q(p)));
    s.ca().ifPresent(p -> out.line("ca " + q(p)));
    s.certificate().ifPresent(p -> out.line("certificate " + q(p)));
    s.key().ifPresent(p -> out.line("key " + q(p)));
    out.close();
  }

  private void trackFile(TrackFile t) {
    out.open("track_file " + q(t.name()));
    out.line("file " + q(t.file()));
    out.line("weight " + t.weight() + (t.reverse() ? " reverse" : ""));
    t.initValue().ifPresent(v -> out.line("init_file " + v + (t.overwrite() ? " overwrite" : "")));
    out.close();
  }

  private void group(VirtualServerGroup g) {
    out.open("virtual_server_group " + q(g.name()));
    for (GroupEntry e : g.entries()) {
      if (e instanceof GroupEntry.Fwmark f) {
        out.line("fwmark " + f.fwmark() + " " + Addresses.keyword(f.family()));
      } else {
        GroupEntry.AddressRange r = (GroupEntry.AddressRange) e;
        String a = Addresses.format(r.first());
        if (!r.first().equals(r.last())) {
          a += "-" + Addresses.format(r.last());
        }
        out.line(a + " " + r.port());
      }
    }
    out.close();
  }
}

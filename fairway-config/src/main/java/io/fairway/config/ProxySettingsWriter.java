package io.fairway.config;

import static io.fairway.config.DumpText.q;
import static io.fairway.config.DumpText.time;

import io.fairway.config.model.AccessLogs;
import io.fairway.config.model.ProxyProtocol;
import io.fairway.config.model.ProxySettings;
import io.fairway.config.model.TlsSettings;

/**
 * Writes the userspace proxy's keywords: {@code http_forwarded}, {@code proxy_protocol}, {@code
 * send_proxy}, {@code proxy_timeouts}, a listener's {@code tls} block and {@code access_log}.
 *
 * <p>Why apart: these are Fairway extensions that only the proxy data plane reads, written only
 * when used so that keepalived can still read a dump of a plain keepalived.conf.
 */
final class ProxySettingsWriter {
  private final DumpText out;

  ProxySettingsWriter(DumpText out) {
    this.out = out;
  }

  void proxySettings(ProxySettings p) {
    if (p.forwarded()) {
      out.line("http_forwarded");
    }
    proxyProtocol(p.proxyProtocol());
    ProxySettings.Timeouts t = p.timeouts();
    if (t.equals(ProxySettings.Timeouts.NONE)) {
      return;
    }
    out.open("proxy_timeouts");
    t.requestHead().ifPresent(d -> out.line("request_head " + time(d)));
    t.requestBody().ifPresent(d -> out.line("request_body " + time(d)));
    t.requestBodyMinRate().ifPresent(r -> out.line("request_body_min_rate " + r));
    t.connect().ifPresent(d -> out.line("connect " + time(d)));
    t.firstByte().ifPresent(d -> out.line("first_byte " + time(d)));
    t.keepAlive().ifPresent(d -> out.line("keepalive " + time(d)));
    t.idle().ifPresent(d -> out.line("idle " + time(d)));
    t.tunnel().ifPresent(d -> out.line("tunnel " + time(d)));
    out.close();
  }

  void accessLogs(AccessLogs a) {
    for (AccessLogs.Entry e : a.logs()) {
      out.line("access_log " + e.path() + " " + e.format().keyword());
    }
  }

  void tls(TlsSettings t) {
    if (!t.enabled()) {
      if (!t.alpn().isEmpty()) {
        out.line("alpn " + String.join(" ", t.alpn())); // a plain listener's h2c
      }
      return;
    }
    out.open("tls");
    t.certificates().forEach(c -> out.line("certificate " + q(c.chain()) + " " + q(c.key())));
    if (!t.protocols().equals(TlsSettings.DEFAULT_PROTOCOLS)) {
      out.line("protocols " + String.join(" ", t.protocols()));
    }
    if (!t.alpn().isEmpty()) {
      out.line("alpn " + String.join(" ", t.alpn()));
    }
    t.ticketKeys().ifPresent(k -> out.line("ticket_keys " + q(k.file())));
    t.handshakeTimeout().ifPresent(d -> out.line("handshake_timeout " + time(d)));
    out.close();
  }

  /** {@code proxy_protocol accept} (virtual server) and {@code send_proxy} (real server). */
  void proxyProtocol(ProxyProtocol p) {
    if (p.accept()) {
      out.line("proxy_protocol accept");
    }
    if (p.send() != ProxyProtocol.Version.NONE) {
      out.line("send_proxy " + p.send().keyword());
    }
  }
}

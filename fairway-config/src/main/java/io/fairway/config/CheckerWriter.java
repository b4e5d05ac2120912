package io.fairway.config;

import static io.fairway.config.DumpText.onOff;
import static io.fairway.config.DumpText.q;
import static io.fairway.config.DumpText.script;
import static io.fairway.config.DumpText.time;

import io.fairway.config.model.BfdCheck;
import io.fairway.config.model.CheckerTiming;
import io.fairway.config.model.DnsCheck;
import io.fairway.config.model.Endpoint;
import io.fairway.config.model.FileCheck;
import io.fairway.config.model.HealthCheck;
import io.fairway.config.model.HttpCheck;
import io.fairway.config.model.MiscCheck;
import io.fairway.config.model.PingCheck;
import io.fairway.config.model.RegexOption;
import io.fairway.config.model.SmtpCheck;
import io.fairway.config.model.StatusRange;
import io.fairway.config.model.TcpCheck;
import io.fairway.config.model.UdpCheck;
import io.fairway.config.model.UrlCheck;
import io.fairway.config.model.base.Addresses;
import io.fairway.config.model.base.Script;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Writes one health checker block of a real server ({@code TCP_CHECK}, {@code HTTP_GET}, {@code
 * MISC_CHECK}, ...): its timing, its endpoint and the keywords of its kind.
 *
 * <p>Why apart: the checkers are a family of blocks sharing timing and endpoint keywords, as their
 * parser shares one table of them.
 */
final class CheckerWriter {
  private final DumpText out;

  CheckerWriter(DumpText out) {
    this.out = out;
  }

  void write(HealthCheck c) {
    out.open(c.keyword());
    if (c instanceof BfdCheck) {
      out.line("alpha " + onOff(c.alpha()));
    } else if (!(c instanceof FileCheck)) {
      timing(c.timing(), !(c instanceof MiscCheck));
    }
    if (c instanceof TcpCheck t) {
      endpoint(t.endpoint());
    } else if (c instanceof PingCheck p) {
      endpoint(p.endpoint());
    } else if (c instanceof HttpCheck h) {
      httpCheck(h);
    } else if (c instanceof MiscCheck m) {
      miscCheck(m);
    } else if (c instanceof DnsCheck d) {
      endpoint(d.endpoint());
      out.line("type " + d.type());
      out.line("name " + q(d.name()));
    } else if (c instanceof SmtpCheck s) {
      endpoint(s.endpoint());
      out.line("helo_name " + q(s.heloName()));
    } else if (c instanceof UdpCheck u) {
      udpCheck(u);
    } else if (c instanceof FileCheck f) {
      out.line("track_file " + q(f.trackFile()));
      out.line("weight " + f.weight() + (f.reverse() ? " reverse" : " noreverse"));
    } else if (c instanceof BfdCheck b) {
      out.line("name " + q(b.name()));
    }
    out.close();
  }

  private void timing(CheckerTiming t, boolean connects) {
    out.line("delay_loop " + time(t.delayLoop()));
    if (connects) {
      out.line("connect_timeout " + time(t.connectTimeout()));
    }
    out.line("retry " + t.retry());
    if (t.rise() != 1) {
      // Only when set: a dump of a plain keepalived.conf stays readable by keepalived.
      out.line("rise " + t.rise());
    }
    out.line("delay_before_retry " + time(t.delayBeforeRetry()));
    out.line("warmup " + time(t.warmup()));
    out.line("alpha " + onOff(t.alpha()));
    out.line("log_all_failures " + onOff(t.logAllFailures()));
  }

  private void endpoint(Endpoint e) {
    out.line("connect_ip " + Addresses.format(e.address()));
    out.line("connect_port " + e.port());
    e.bindTo().ifPresent(b -> out.line("bindto " + Addresses.format(b)));
    if (e.bindPort() != 0) {
      out.line("bind_port " + e.bindPort());
    }
    e.bindInterface().ifPresent(i -> out.line("bind_if " + q(i)));
    if (e.fwmark() != 0) {
      out.line("fwmark " + e.fwmark());
    }
  }

  private void httpCheck(HttpCheck h) {
    endpoint(h.endpoint());
    out.line("http_protocol " + h.httpVersion());
    out.line("fast_recovery " + onOff(h.fastRecovery()));
    if (h.ssl()) {
      out.line("enable_sni " + onOff(h.enableSni()));
    }
    h.sniName().ifPresent(s -> out.line("sni_name " + q(s)));
    // Fairway extensions: written only when used, so a plain keepalived.conf dumps as one.
    if (h.verifyCert()) {
      out.line("verify_cert");
    }
    h.caFile().ifPresent(f -> out.line("ca_file " + q(f)));
    for (UrlCheck u : h.urls()) {
      url(u);
    }
  }

  private void miscCheck(MiscCheck m) {
    out.line(
        "misc_path "
            + script(
                new Script(
                    m.script().command(), m.script().argv(), Optional.empty(), Optional.empty())));
    m.script()
        .user()
        .ifPresent(
            u -> out.line("user " + q(u) + m.script().group().map(g -> " " + q(g)).orElse("")));
    out.line("misc_timeout " + time(m.timeout()));
    out.line("misc_dynamic " + onOff(m.dynamic()));
  }

  private void udpCheck(UdpCheck u) {
    endpoint(u.endpoint());
    if (!u.payload().isEmpty()) {
      out.line("payload " + u.payload());
    }
    u.requireReply().ifPresent(r -> out.line(r.isEmpty() ? "require_reply" : "require_reply " + r));
    out.line("min_reply_length " + u.minReplyLength());
    out.line("max_reply_length " + u.maxReplyLength());
  }

  private void url(UrlCheck u) {
    out.open("url");
    out.line("path " + q(u.path()));
    u.digest().ifPresent(d -> out.line("digest " + d));
    out.line(
        "status_code "
            + u.statusCodes().stream().map(StatusRange::toString).collect(Collectors.joining(" ")));
    u.virtualhost().ifPresent(v -> out.line("virtualhost " + q(v)));
    u.regex().ifPresent(r -> out.line("regex " + q(r)));
    if (u.regexNoMatch()) {
      out.line("regex_no_match");
    }
    if (!u.regexOptions().isEmpty()) {
      out.line(
          "regex_options "
              + u.regexOptions().stream()
                  .map(RegexOption::keyword)
                  .collect(Collectors.joining(" ")));
    }
    if (u.regexMinOffset() != 0) {
      out.line("regex_min_offset " + u.regexMinOffset());
    }
    u.regexMaxOffset().ifPresent(m -> out.line("regex_max_offset " + m));
    out.close();
  }
}

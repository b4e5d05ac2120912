package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.model.Config;
import io.fairway.config.model.GlobalDefs;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** {@code --dump} is canonical: parsing it gives the same model, and dumping that is a no-op. */
class DumpRoundTripTest {

  static final List<String> KERNEL =
      List.of(
          "rr", "wrr", "lc", "wlc", "lblc", "lblcr", "sh", "dh", "mh", "sed", "nq", "fo", "ovf",
          "twos");
  static final List<String> VARNISH = List.of("round_robin", "fallback", "random", "hash", "shard");

  static void assertRoundTrip(Config c) {
    String dump = KeepalivedConfig.dump(c);
    Config again =
        KeepalivedConfig.parse("dump.conf", dump, Path.of("."), Fixtures.OPTIONS).config();
    assertThat(again).isEqualTo(c);
    assertThat(KeepalivedConfig.dump(again)).isEqualTo(dump);
  }

  @Example
  void fixturesRoundTrip() {
    for (String f : Fixtures.ALL) {
      assertRoundTrip(Fixtures.load(f).config());
    }
  }

  @Example
  void valuesThatLookLikeDirectivesAreQuoted() {
    // Found by FuzzTest: these were printed bare and read back as a definition or an include.
    Config c =
        Fixtures.parse(
                "global_defs {\n notification_email {\n \"$X=1\"\n \"include\"\n"
                    + " \"@x\"\n \"~SEQ(a, 1)\"\n }\n}\n")
            .config();
    assertThat(c.globalDefs().notificationEmails())
        .containsExactly("$X=1", "include", "@x", "~SEQ(a, 1)");
    assertRoundTrip(c);
  }

  @Example
  void lvsFlushOnStopKeepsWhetherItIsTheWholeTableOrTheServices() {
    String vs =
        "virtual_server 127.0.0.1 80 {\n protocol TCP\n real_server 127.0.0.2 80 {\n }\n}\n";
    assertThat(
            Fixtures.parse("global_defs {\n lvs_flush_on_stop\n}\n" + vs)
                .config()
                .globalDefs()
                .lvsFlushOnStop())
        .isEqualTo(GlobalDefs.FlushOnStop.FULL);
    Config c = Fixtures.parse("global_defs {\n lvs_flush_on_stop VS\n}\n" + vs).config();
    assertThat(c.globalDefs().lvsFlushOnStop()).isEqualTo(GlobalDefs.FlushOnStop.VS);
    assertRoundTrip(c);
  }

  @Property
  void generatedConfigsRoundTrip(@ForAll long seed) {
    String text = generate(new Random(seed));
    Config c = Fixtures.parse(text).config();
    assertThat(c.virtualServers()).isNotEmpty();
    assertRoundTrip(c);
  }

  /** A random but valid keepalived.conf with Fairway extensions. */
  static String generate(Random r) {
    StringBuilder sb = new StringBuilder();
    sb.append("global_defs {\n  router_id R").append(r.nextInt(100)).append('\n');
    if (r.nextBoolean()) {
      sb.append("  checker_log_all_failures\n");
    }
    sb.append(pick(r, List.of("", "  lvs_flush_on_stop\n", "  lvs_flush_on_stop VS\n")));
    sb.append("}\n");
    sb.append("track_file tf {\n  file /tmp/tf\n  weight ")
        .append(r.nextInt(21) - 10)
        .append("\n}\n");
    int nvs = 1 + r.nextInt(3);
    for (int v = 0; v < nvs; v++) {
      int kind = r.nextInt(3); // 0 v4, 1 v6, 2 fwmark
      boolean varnish = kind != 2 && r.nextInt(3) == 0;
      String sched = varnish ? pick(r, VARNISH) : pick(r, KERNEL);
      String method;
      if (varnish) {
        method = r.nextBoolean() ? "PROXY" : "HTTP";
      } else if (kind == 2) {
        method = pick(r, List.of("NAT", "DR", "TUN"));
      } else {
        method = pick(r, List.of("NAT", "DR", "TUN", "PROXY", "HTTP"));
      }
      boolean userspace = method.equals("PROXY") || method.equals("HTTP");
      int vsPort = 1000 + v;
      switch (kind) {
        case 0 -> sb.append("virtual_server 127.0.1.").append(v + 1).append(' ').append(vsPort);
        case 1 ->
            sb.append("virtual_server fd00::")
                .append(Integer.toHexString(v + 1))
                .append(' ')
                .append(vsPort);
        default -> sb.append("virtual_server fwmark ").append(v + 1);
      }
      sb.append(" {\n");
      if (r.nextBoolean()) {
        sb.append("  name vs").append(v).append('\n');
      }
      sb.append("  lb_algo ").append(sched).append('\n');
      sb.append("  lb_kind ").append(method);
      if (method.equals("TUN") && r.nextBoolean()) {
        sb.append(" type gue port ")
            .append(1 + r.nextInt(65535))
            .append(r.nextBoolean() ? " csum" : "");
      }
      sb.append('\n');
      if (kind != 2) {
        sb.append("  protocol ").append(userspace || r.nextBoolean() ? "TCP" : "UDP").append('\n');
      }
      if (sched.equals("sh") && r.nextBoolean()) {
        sb.append("  sh-port\n");
      }
      if (sched.equals("shard")) {
        sb.append("  shard {\n    replicas ").append(1 + r.nextInt(200)).append('\n');
        sb.append("    healthy ").append(pick(r, List.of("CHOSEN", "IGNORE", "ALL"))).append('\n');
        sb.append("    warmup 0.").append(r.nextInt(10)).append('\n');
        sb.append("    rampup ").append(r.nextInt(60)).append('\n');
        sb.append("    by ")
            .append(
                method.equals("HTTP")
                    ? pick(r, List.of("HASH", "URL", "HEADER X-Key", "COOKIE c", "KEY"))
                    : pick(r, List.of("KEY", "BLOB", "CLIENT_IP")))
            .append("\n  }\n");
        if (r.nextBoolean()) {
          sb.append("  hash_balance_factor ").append(101 + r.nextInt(200)).append('\n');
        }
      } else if (sched.equals("fallback") && r.nextBoolean()) {
        sb.append("  fallback {\n    sticky ")
            .append(r.nextBoolean() ? "on" : "off")
            .append("\n  }\n");
      } else if (sched.equals("hash") && r.nextBoolean()) {
        sb.append("  hash {\n    by ")
            .append(method.equals("HTTP") ? "HEADER Host" : "CLIENT_IP")
            .append("\n  }\n");
      }
      if (r.nextBoolean()) {
        sb.append("  persistence_timeout ").append(1 + r.nextInt(3600)).append('\n');
      }
      if (r.nextBoolean()) {
        sb.append("  delay_loop ")
            .append(1 + r.nextInt(30))
            .append('.')
            .append(r.nextInt(10))
            .append('\n');
      }
      if (r.nextBoolean()) {
        sb.append("  retry ").append(1 + r.nextInt(5)).append('\n');
      }
      if (r.nextBoolean()) {
        sb.append("  alpha\n");
      }
      sb.append("  quorum ").append(1 + r.nextInt(10)).append('\n');
      sb.append("  hysteresis ").append(r.nextInt(4)).append('\n');
      if (r.nextBoolean()) {
        sb.append("  quorum_up \"/bin/echo up ").append(v).append("\"\n");
      }
      int nrs = 1 + r.nextInt(5);
      if (r.nextBoolean() && kind != 1) {
        sb.append("  sorry_server 127.0.9.").append(v + 1).append(' ').append(vsPort).append('\n');
        if (r.nextBoolean()) {
          sb.append("  overflow_to_sorry_server\n");
        }
      }
      if (r.nextInt(3) == 0) {
        sb.append("  max_conns ").append(1 + r.nextInt(500)).append('\n');
      }
      if (r.nextBoolean()) {
        sb.append("  slow_start ")
            .append(r.nextInt(120))
            .append('.')
            .append(r.nextInt(10))
            .append('\n');
      }
      for (int i = 0; i < nrs; i++) {
        String addr = kind == 1 ? "fd00::1:" + Integer.toHexString(i + 1) : "127.0.2." + (10 + i);
        sb.append("  real_server ").append(addr).append(' ').append(2000 + i).append(" {\n");
        if (varnish) {
          sb.append("    weight ")
              .append(r.nextInt(5))
              .append('.')
              .append(r.nextInt(10))
              .append('\n');
        } else {
          sb.append("    weight ").append(r.nextInt(10)).append('\n');
        }
        if (r.nextBoolean()) {
          int u = r.nextInt(1000);
          sb.append("    uthreshold ")
              .append(u)
              .append("\n    lthreshold ")
              .append(u == 0 ? 0 : r.nextInt(u))
              .append('\n');
        }
        if (r.nextBoolean()) {
          sb.append("    inhibit_on_failure\n");
        }
        if (r.nextInt(3) == 0) {
          sb.append("    slow_start ").append(r.nextInt(60)).append('\n');
        }
        if (r.nextInt(3) == 0) {
          sb.append("    max_conns ").append(r.nextInt(1000)).append('\n');
        }
        int nck = r.nextInt(3);
        for (int k = 0; k < nck; k++) {
          checker(sb, r);
        }
        sb.append("  }\n");
      }
      sb.append("}\n");
    }
    return sb.toString();
  }

  static void checker(StringBuilder sb, Random r) {
    String type =
        pick(
            r,
            List.of(
                "TCP_CHECK",
                "HTTP_GET",
                "SSL_GET",
                "MISC_CHECK",
                "DNS_CHECK",
                "SMTP_CHECK",
                "UDP_CHECK",
                "PING_CHECK",
                "FILE_CHECK"));
    sb.append("    ").append(type).append(" {\n");
    boolean network = !type.equals("MISC_CHECK") && !type.equals("FILE_CHECK");
    if (network) {
      sb.append("      connect_port ").append(1 + r.nextInt(65535)).append('\n');
      if (r.nextBoolean()) {
        sb.append("      connect_timeout 0.").append(1 + r.nextInt(9)).append('\n');
      }
    }
    if (!type.equals("FILE_CHECK")) {
      if (r.nextBoolean()) {
        sb.append("      retry ").append(r.nextInt(4)).append('\n');
      }
      if (r.nextBoolean()) {
        sb.append("      delay_before_retry ").append(r.nextInt(5)).append('\n');
      }
      if (r.nextBoolean()) {
        sb.append("      warmup ").append(r.nextInt(5)).append('\n');
      }
      if (r.nextInt(3) == 0) {
        sb.append("      rise ").append(1 + r.nextInt(5)).append('\n');
      }
    }
    switch (type) {
      case "HTTP_GET", "SSL_GET" -> {
        sb.append("      url {\n        path /p").append(r.nextInt(9)).append('\n');
        if (r.nextBoolean()) {
          sb.append("        status_code 200 3").append(r.nextInt(10)).append("0-399\n");
        }
        if (r.nextBoolean()) {
          sb.append("        digest 0123456789abcdef0123456789ABCDEF\n");
        }
        if (r.nextBoolean()) {
          sb.append("        regex \"ok|fine ").append(r.nextInt(9)).append("\"\n");
          if (r.nextBoolean()) {
            sb.append("        regex_options ")
                .append(
                    pick(
                        r,
                        List.of("caseless", "dotall multiline", "utf ucp", "firstline extended")))
                .append('\n');
          }
          if (r.nextBoolean()) {
            int min = r.nextInt(100);
            sb.append("        regex_min_offset ")
                .append(min)
                .append("\n        regex_max_offset ")
                .append(min + r.nextInt(100))
                .append('\n');
          }
          if (r.nextBoolean()) {
            sb.append("        regex_no_match\n");
          }
        }
        sb.append("      }\n");
        if (type.equals("SSL_GET") && r.nextBoolean()) {
          sb.append("      verify_cert\n");
          if (r.nextBoolean()) {
            sb.append("      ca_file /etc/ssl/ca").append(r.nextInt(3)).append(".pem\n");
          }
        }
        if (r.nextBoolean()) {
          sb.append("      virtualhost h").append(r.nextInt(3)).append(".test\n");
        }
      }
      case "MISC_CHECK" ->
          sb.append("      misc_path \"/bin/check ")
              .append(r.nextInt(9))
              .append("\"\n")
              .append(r.nextBoolean() ? "      misc_dynamic\n" : "");
      case "DNS_CHECK" ->
          sb.append("      type ")
              .append(pick(r, List.of("A", "AAAA", "SOA")))
              .append("\n      name n")
              .append(r.nextInt(5))
              .append(".test\n");
      case "UDP_CHECK" -> sb.append("      payload ab\n      require_reply cx\n");
      case "FILE_CHECK" ->
          sb.append("      track_file tf\n")
              .append(r.nextBoolean() ? "      weight 3 reverse\n" : "");
      default -> {}
    }
    sb.append("    }\n");
  }

  static String pick(Random r, List<String> xs) {
    return xs.get(r.nextInt(xs.size()));
  }
}

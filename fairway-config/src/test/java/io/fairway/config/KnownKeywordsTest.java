package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The keywords each block offers in "did you mean" suggestions, now derived from its keyword table,
 * are the lists the blocks kept by hand before their tables.
 */
class KnownKeywordsTest {
  @Test
  void realServer() {
    Set<String> listed =
        new HashSet<>(
            Set.of(
                "delay_loop",
                "connect_timeout",
                "retry",
                "delay_before_retry",
                "warmup",
                "alpha",
                "rise",
                "fall",
                "weight",
                "lvs_method",
                "uthreshold",
                "lthreshold",
                "inhibit_on_failure",
                "notify_up",
                "notify_down",
                "smtp_alert",
                "virtualhost",
                "snmp_name",
                "name",
                "ident",
                "slow_start",
                "max_conns",
                "send_proxy",
                "tls",
                "http2"));
    listed.addAll(CheckerParser.CHECKERS);
    assertThat(RealServerParser.TABLE.known()).isEqualTo(listed);
  }

  @Test
  void globalDefs() {
    Set<String> listed =
        new HashSet<>(
            Set.of(
                "router_id",
                "notification_email",
                "notification_email_from",
                "smtp_server",
                "smtp_connect_timeout",
                "smtp_alert",
                "lvs_flush",
                "lvs_flush_on_stop",
                "lvs_timeouts",
                "checker_log_all_failures",
                "rs_init_notifies",
                "no_checker_emails",
                "script_user",
                "enable_script_security"));
    listed.addAll(AnnounceParser.GLOBAL);
    listed.addAll(Keywords.IGNORED_GLOBAL);
    listed.addAll(VrrpParser.GLOBAL);
    assertThat(GlobalDefsParser.known()).isEqualTo(listed);
  }

  @Test
  void checkers() {
    for (String type : CheckerParser.CHECKERS) {
      assertThat(CheckerParser.known(type)).as(type).isEqualTo(listedBefore(type));
    }
  }

  /** The checker keyword lists as they were kept by hand. */
  private static Set<String> listedBefore(String type) {
    Set<String> base = new HashSet<>(CheckerParser.CHECKER_COMMON);
    if (type.equals("FILE_CHECK")) {
      base.clear();
    } else if (type.equals("BFD_CHECK")) {
      base = new HashSet<>(Set.of("alpha"));
    } else if (type.equals("MISC_CHECK")) {
      base.remove("connect_timeout");
    }
    if (!Set.of("MISC_CHECK", "FILE_CHECK", "BFD_CHECK").contains(type)) {
      base.addAll(CheckerParser.ENDPOINT);
    }
    base.addAll(
        switch (type) {
          case "HTTP_GET", "SSL_GET" ->
              Set.of(
                  "url",
                  "http_protocol",
                  "virtualhost",
                  "fast_recovery",
                  "enable_sni",
                  "sni_name",
                  "tls_compliant",
                  "verify_cert",
                  "ca_file");
          case "MISC_CHECK" -> Set.of("misc_path", "misc_timeout", "misc_dynamic", "user");
          case "DNS_CHECK" -> Set.of("type", "name");
          case "SMTP_CHECK" -> Set.of("helo_name", "host");
          case "UDP_CHECK" ->
              Set.of("payload", "require_reply", "min_reply_length", "max_reply_length");
          case "FILE_CHECK" -> Set.of("track_file", "weight");
          case "BFD_CHECK" -> Set.of("name");
          default -> Set.of();
        });
    return base;
  }

  @Test
  void vrrpInstance() {
    assertThat(VrrpInstanceBlock.TABLE.known())
        .isEqualTo(
            Set.of(
                "state",
                "interface",
                "virtual_router_id",
                "priority",
                "advert_int",
                "virtual_ipaddress",
                "virtual_ipaddress_excluded",
                "nopreempt",
                "preempt",
                "preempt_delay",
                "unicast_src_ip",
                "mcast_src_ip",
                "unicast_peer",
                "authentication",
                "garp_master_delay",
                "garp_master_repeat",
                "garp_master_refresh",
                "notify_master",
                "notify_backup",
                "notify_fault",
                "notify_stop",
                "notify",
                "track_script",
                "track_interface",
                "track_file",
                "version",
                "accept",
                "no_accept",
                "lvs_sync_daemon_interface",
                "smtp_alert",
                "dont_track_primary"));
  }

  @Test
  void url() {
    assertThat(CheckerParser.urlKeywords())
        .isEqualTo(
            Set.of(
                "path",
                "digest",
                "status_code",
                "virtualhost",
                "regex",
                "regex_no_match",
                "regex_options",
                "regex_min_offset",
                "regex_max_offset",
                "regex_stack"));
  }

  @Test
  void vrrpScript() {
    assertThat(VrrpParser.scriptKeywords())
        .isEqualTo(
            Set.of("script", "interval", "timeout", "weight", "rise", "fall", "user", "init_fail"));
  }
}

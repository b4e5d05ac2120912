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
                "send_proxy"));
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
}

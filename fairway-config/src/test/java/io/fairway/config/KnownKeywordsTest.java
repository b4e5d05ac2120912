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
}

package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.HealthCheck;
import io.fairway.config.model.SmtpCheck;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Paths the keyword-table split of the checker and VRRP parsers moved and no other test reached: an
 * SMTP_CHECK {@code host} block read through the shared endpoint table, and the sync group table's
 * own refusals.
 */
class SplitBlocksTest {
  private static final String VS =
      "virtual_server 10.16.0.1 25 {\n lb_algo rr\n lb_kind NAT\n protocol TCP\n"
          + " real_server 10.16.1.1 25 {\n";

  private static List<HealthCheck> checkers(String checker) {
    return Fixtures.parse(VS + checker + " }\n}\n")
        .config()
        .virtualServers()
        .get(0)
        .realServers()
        .get(0)
        .checkers();
  }

  private static String error(String text) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e).isNotNull();
    return e.getMessage();
  }

  @Test
  void smtpHostsStartFromTheCheckersEndpoint() {
    List<HealthCheck> cs =
        checkers(
            "  SMTP_CHECK {\n   connect_port 2525\n   bind_port 4000\n"
                + "   host {\n    connect_ip 10.16.1.2\n   }\n"
                + "   host {\n    connect_port 587\n   }\n  }\n");
    assertThat(cs).hasSize(2);
    SmtpCheck a = (SmtpCheck) cs.get(0);
    SmtpCheck b = (SmtpCheck) cs.get(1);
    assertThat(a.endpoint().address().getHostAddress()).isEqualTo("10.16.1.2");
    assertThat(a.endpoint().port()).isEqualTo(2525);
    assertThat(a.endpoint().bindPort()).isEqualTo(4000);
    assertThat(b.endpoint().address().getHostAddress()).isEqualTo("10.16.1.1");
    assertThat(b.endpoint().port()).isEqualTo(587);
    assertThat(b.endpoint().bindPort()).isEqualTo(4000);
  }

  @Test
  void smtpHostTakesOnlyEndpointKeywords() {
    String text = VS + "  SMTP_CHECK {\n   host {\n    connect_prot 25\n   }\n  }\n }\n}\n";
    assertThat(error(text))
        .contains(
            "test.conf:8: unknown keyword 'connect_prot' in SMTP_CHECK host (did you mean"
                + " 'connect_port'?)");
  }

  private static final String TWO =
      "vrrp_instance VI_1 {\n interface eth0\n virtual_router_id 51\n"
          + " virtual_ipaddress {\n  10.1.0.10\n }\n}\n"
          + "vrrp_instance VI_2 {\n interface eth0\n virtual_router_id 52\n"
          + " virtual_ipaddress {\n  10.1.0.11\n }\n}\n";

  @Test
  void syncGroupGroupTwice() {
    assertThat(error(TWO + "vrrp_sync_group G {\n group {\n  VI_1\n }\n group {\n  VI_2\n }\n}\n"))
        .contains("test.conf:19: vrrp_sync_group G: 'group' is given twice");
  }

  @Test
  void syncGroupMemberTwiceAndInTwoGroups() {
    assertThat(error(TWO + "vrrp_sync_group G {\n group {\n  VI_1 VI_1\n }\n}\n"))
        .contains("test.conf:17: vrrp_sync_group G: 'VI_1' is listed twice");
    assertThat(
            error(
                TWO
                    + "vrrp_sync_group G {\n group {\n  VI_1\n }\n}\n"
                    + "vrrp_sync_group H {\n group {\n  VI_1\n }\n}\n"))
        .contains("test.conf:22: vrrp_instance VI_1 is already in vrrp_sync_group G");
  }
}

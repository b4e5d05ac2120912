package io.fairway.plan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The whole comment block, every part present, line by line. */
class PlanFormatTest {
  @Test
  void everyPartOfThePlanIsWritten() throws Exception {
    Plan p =
        SyncPlanTest.plan(
            """
            global_defs {
              lvs_timeouts tcp 900 tcpfin 120 udp 300
              lvs_sync_daemon eth1 VI_1 maxlen 1400 port 8849
            }
            vrrp_instance VI_1 {
              interface eth0
              virtual_router_id 51
            }
            virtual_server 127.0.0.1 80 {
              lb_algo wrr
              lb_kind NAT
              protocol TCP
              persistence_timeout 60
              persistence_granularity 255.255.255.0
              quorum 2
              hysteresis 1
              sorry_server 127.0.0.9 8080
              sorry_server_inhibit
              overflow_to_sorry_server
              real_server 127.0.0.2 8080 {
                weight 2
                inhibit_on_failure
                slow_start 2.5
              }
              real_server 127.0.0.3 8081 {
              }
            }
            """);
    assertThat(PlanFormat.comment(p).lines())
        .containsExactly(
            "# plan (what run, pick and status act on)",
            "# virtual_server 127.0.0.1:80 (t.conf:9)",
            "#   service TCP 127.0.0.1:80 scheduler wrr persistence 60s/24",
            "#   lb_kind NAT",
            "#   selection wrr",
            "#   key CLIENT_IP",
            "#   member 127.0.0.2:8080 ident 127.0.0.2:8080 weight 2 address 127.0.0.2"
                + " ipvs_port 8080 check_port 8080 MASQ inhibit slow_start 2.5s",
            "#   member 127.0.0.3:8081 ident 127.0.0.3:8081 weight 1 address 127.0.0.3"
                + " ipvs_port 8081 check_port 8081 MASQ",
            "#   sorry_server 127.0.0.9:8080 inhibit overflow",
            "#   quorum 2 hysteresis 1",
            "# lvs_timeouts tcp 900 tcpfin 120 udp 300",
            "# lvs_sync_daemon interface eth1 syncid 51 maxlen 1400 port 8849 ttl 1"
                + " group 224.0.0.81 follows vrrp_instance VI_1");
    assertThat(PlanFormat.comment(p)).endsWith("VI_1\n");
  }
}

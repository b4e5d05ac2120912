package io.fairway.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.director.varnish.ShardBy;
import io.fairway.director.varnish.ShardHealthy;
import io.fairway.table.DestKey;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.ServiceKey;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PlanBuilderTest {

  static Plan plan(String text) throws PlanException {
    return PlanBuilder.build(
        KeepalivedConfig.parse("t.conf", text, Path.of("."), ParseOptions.defaults()).config());
  }

  @Test
  void shardParametersAreTypedWithTheModelsDefaults() throws Exception {
    Plan p =
        plan(
            """
        virtual_server 127.0.0.1 8080 {
          name web
          lb_algo shard
          lb_kind HTTP
          shard {
            by HEADER X-User
            warmup 1.0
          }
          real_server 127.0.0.1 9001 {
            name b1
            ident node-1
            weight 1.5
          }
          real_server 127.0.0.1 9002 {
            name b2
            weight 0.5
          }
        }
        """);
    ServicePlan web = p.service("web").orElseThrow();
    assertThat(web.selection())
        .isEqualTo(
            new Selection.Shard(67, ShardBy.KEY, ShardHealthy.CHOSEN, 1.0, Duration.ZERO, 0));
    assertThat(web.key().toString()).isEqualTo("HEADER X-User");
    assertThat(web.http()).isTrue();
    MemberPlan b1 = web.members().get(0);
    assertThat(b1.name()).isEqualTo("b1");
    assertThat(b1.ident()).isEqualTo("node-1");
    assertThat(b1.weight()).isEqualTo(1.5);
    assertThat(b1.tableWeight()).as("rounded up for the table").isEqualTo(2);
    MemberPlan b2 = web.members().get(1);
    assertThat(b2.ident()).as("ident defaults to the name").isEqualTo("b2");
    assertThat(b2.tableWeight()).as("0.5 is up").isEqualTo(1);
  }

  @Test
  void drMemberCarriesBothPorts() throws Exception {
    Plan p =
        plan(
            """
        virtual_server_group web {
          10.9.0.1 80
          10.9.0.10-11 8080
        }
        virtual_server group web {
          lb_algo rr
          lb_kind DR
          real_server 127.0.0.2 8080 {
            TCP_CHECK {
            }
          }
        }
        """);
    ServicePlan vs = p.services().get(0);
    assertThat(vs.services()).hasSize(3);
    MemberPlan m = vs.members().get(0);
    assertThat(m.checkPort()).isEqualTo(8080);
    assertThat(m.dest().forwarding()).isEqualTo(ForwardingMethod.DROUTE);
    InetAddress rs = InetAddress.getByName("127.0.0.2");
    // IPVS: each service's own port.
    ServiceKey k80 = vs.services().get(0).key();
    ServiceKey k8080 = vs.services().get(1).key();
    assertThat(m.keyIn(k80)).isEqualTo(new DestKey(rs, 80));
    assertThat(m.keyIn(k8080)).isEqualTo(new DestKey(rs, 8080));
    assertThat(PlanFormat.comment(p)).contains("check_port 8080");
  }

  @Test
  void kernelSchedulerKeepsFlagsAndBoundedLoad() throws Exception {
    Plan p =
        plan(
            """
        virtual_server 127.0.0.1 80 {
          lb_algo mh
          mh-port
          hash_balance_factor 150
          lb_kind NAT
          real_server 127.0.0.1 9001 {
          }
        }
        """);
    assertThat(p.services().get(0).selection())
        .isEqualTo(new Selection.Kernel("mh", java.util.List.of("mh-port"), 150));
  }

  @Test
  void changesSinceNamesTheFieldsThatChanged() throws Exception {
    String a =
        "virtual_server 127.0.0.1 80 {\n name web\n lb_algo shard\n lb_kind HTTP\n"
            + " shard {\n  replicas %d\n }\n real_server 127.0.0.1 9001 {\n }\n}\n";
    Plan before = plan(a.formatted(67));
    Plan after = plan(a.formatted(1));
    assertThat(after.changesSince(before)).containsExactly("web: selection changed");
    assertThat(after.changesSince(after)).isEmpty();
  }

  @Test
  void aServerThatOnlyMovedToAnotherLineIsNoChange() throws Exception {
    String conf =
        "virtual_server 127.0.0.1 80 {\n name web\n lb_algo rr\n lb_kind NAT\n"
            + " sorry_server 127.0.0.1 9009\n real_server 127.0.0.1 9001 {\n  weight %d\n }\n}\n";
    Plan before = plan(conf.formatted(1));
    Plan moved = plan("# a comment moves every line\n\n" + conf.formatted(1));
    assertThat(moved.services().get(0).members().get(0).where())
        .isNotEqualTo(before.services().get(0).members().get(0).where());
    assertThat(moved.changesSince(before)).isEmpty();
    assertThat(plan(conf.formatted(2)).changesSince(before))
        .containsExactly("web: members changed");
  }
}

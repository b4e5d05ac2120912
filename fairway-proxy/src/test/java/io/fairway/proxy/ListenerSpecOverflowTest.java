package io.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.plan.Plan;
import io.fairway.plan.PlanBuilder;
import io.fairway.plan.Selection;
import io.fairway.plan.ServicePlan;
import io.fairway.proxy.table.ListenerSpec;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * overflow_to_sorry_server and slow_start as the plan carries them to the proxy: the proxy
 * overflows only with the keyword (off, it refuses as the kernel does), members carry their
 * slow_start, and a shard service's slow_start is its director's rampup.
 */
class ListenerSpecOverflowTest {
  static final String CONF =
      """
      virtual_server 127.0.0.1 8080 {
          lb_kind PROXY
          lb_algo wlc
          sorry_server 127.0.0.1 9999
          overflow_to_sorry_server
          slow_start 20
          real_server 127.0.0.1 9001 {
          }
          real_server 127.0.0.1 9002 {
              slow_start 0
          }
      }
      virtual_server 127.0.0.1 8081 {
          lb_kind PROXY
          lb_algo wlc
          sorry_server 127.0.0.1 9998
          real_server 127.0.0.1 9001 {
          }
      }
      virtual_server 127.0.0.1 8082 {
          lb_kind PROXY
          lb_algo shard
          real_server 127.0.0.1 9001 {
              slow_start 15
          }
      }
      """;

  @Test
  void theProxyOverflowsOnlyWithTheKeyword() throws Exception {
    Plan plan =
        PlanBuilder.build(
            KeepalivedConfig.parse("test.conf", CONF, Path.of("."), ParseOptions.defaults())
                .config());
    ServicePlan with = plan.services().get(0);
    assertThat(with.sorry().orElseThrow().overflow()).isTrue();
    assertThat(ListenerSpec.of(with, with.services().get(0).key()).sorryServer())
        .isEqualTo(new InetSocketAddress("127.0.0.1", 9999));
    assertThat(with.members())
        .extracting(m -> m.slowStart())
        .containsExactly(Duration.ofSeconds(20), Duration.ZERO);

    ServicePlan without = plan.services().get(1);
    assertThat(without.sorry().orElseThrow().overflow()).isFalse();
    // Only keepalived's sorry server (installed when quorum is lost): the proxy must refuse what
    // nobody can take, as the kernel does.
    assertThat(ListenerSpec.of(without, without.services().get(0).key()).sorryServer()).isNull();

    // check-config --dump shows both in the plan comment.
    assertThat(io.fairway.plan.PlanFormat.comment(plan))
        .contains("sorry_server 127.0.0.1:9999 overflow\n")
        .contains("slow_start 20.0s")
        .contains("sorry_server 127.0.0.1:9998\n");

    ServicePlan shard = plan.services().get(2);
    assertThat(((Selection.Shard) shard.selection()).rampup()).isEqualTo(Duration.ofSeconds(15));
    assertThat(shard.members().get(0).slowStart()).as("shard ramps in the director").isZero();
  }
}

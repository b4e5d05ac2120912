package io.fairway.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.config.model.ProxyProtocol;
import io.fairway.table.Dest;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MemberPlanTest {
  private static final Dest DEST = Dest.of(InetAddress.getLoopbackAddress(), 8080, 3);

  @Test
  void aBuilderThatSetsNothingMakesAPlainRealServer() {
    MemberPlan m = MemberPlan.builder("app", DEST).build();

    assertThat(m)
        .isEqualTo(
            new MemberPlan(
                "",
                "app",
                "app",
                3,
                DEST,
                8080,
                false,
                Duration.ZERO,
                0,
                ProxyProtocol.NONE,
                Optional.empty(),
                0,
                false));
  }

  @Test
  void everySettingReachesTheMember() {
    MemberPlan m =
        MemberPlan.builder("app", DEST)
            .where("keepalived.conf:7")
            .ident("shard-a")
            .weight(0.5)
            .checkPort(9090)
            .inhibit(true)
            .slowStart(Duration.ofSeconds(30))
            .maxConns(100)
            .proxyProtocol(ProxyProtocol.sending(ProxyProtocol.Version.V2))
            .tier(1)
            .http2(true)
            .build();

    assertThat(m)
        .isEqualTo(
            new MemberPlan(
                "keepalived.conf:7",
                "app",
                "shard-a",
                0.5,
                DEST,
                9090,
                true,
                Duration.ofSeconds(30),
                100,
                ProxyProtocol.sending(ProxyProtocol.Version.V2),
                Optional.empty(),
                1,
                true));
    assertThat(m.toBuilder().build()).isEqualTo(m);
    assertThat(m.toBuilder().where("").build().where()).isEmpty();
  }

  @Test
  void theBuilderIsCheckedLikeTheConstructor() {
    assertThatThrownBy(() -> MemberPlan.builder("app", DEST).weight(-1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("weight");
    assertThatThrownBy(() -> MemberPlan.builder("app", DEST).maxConns(-1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxConns");
  }
}

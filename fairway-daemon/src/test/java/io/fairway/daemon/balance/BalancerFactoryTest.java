package io.fairway.daemon.balance;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.director.Backend;
import io.fairway.director.Request;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.plan.Plan;
import io.fairway.plan.PlanBuilder;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Objects;
import org.junit.jupiter.api.Test;

class BalancerFactoryTest {

  static Plan config() throws Exception {
    return PlanBuilder.build(
        KeepalivedConfig.parse(
                Path.of(BalancerFactoryTest.class.getResource("/pick/directors.conf").toURI()))
            .config());
  }

  @Test
  void shardFromConfigCarriesSettingsIdentsAndRealServers() throws Exception {
    Balancer b =
        BalancerFactory.build(config().service("web").orElseThrow(), BalancerFactory.Options.NONE);
    assertThat(b).isInstanceOf(DirectorBalancer.class);
    assertThat(b.servers()).containsExactly("b0", "b1", "b2", "b3");
    ShardDirector d = (ShardDirector) ((DirectorBalancer) b).director();
    assertThat(d.settings().replicas()).isEqualTo(37);
    assertThat(d.members().get(0).effectiveIdent()).isEqualTo("node-1");
    assertThat(d.members().get(1).effectiveIdent()).isEqualTo("b1");
    assertThat(d.members().get(2).weight()).isEqualTo(1.5);
    // ring size: 37 + 74 + trunc(37*1.5)=55 + 37
    assertThat(d.state().ring().size()).isEqualTo(37 + 74 + 55 + 37);
    Backend picked = d.pick(Request.ofString("/x"));
    assertThat(picked).isInstanceOf(RealServerBackend.class);
    assertThat(
            ((RealServerBackend) Objects.requireNonNull(picked, "checked above"))
                .member()
                .address())
        .isEqualTo(InetAddress.getByName("127.0.0.1"));
  }

  @Test
  void warmupOneAlwaysWarmsTheNextServer() throws Exception {
    String text =
        String.join(
            "\n",
            "virtual_server 127.0.0.1 8080 {",
            "  name web",
            "  lb_algo shard",
            "  lb_kind PROXY",
            "  shard {",
            "    warmup 1.0",
            "  }",
            "  real_server 127.0.0.1 9001 {",
            "  }",
            "  real_server 127.0.0.1 9002 {",
            "  }",
            "  real_server 127.0.0.1 9003 {",
            "  }",
            "}",
            "");
    Plan c =
        PlanBuilder.build(
            KeepalivedConfig.parse(
                    "warm.conf", text, Path.of("."), io.fairway.config.ParseOptions.defaults())
                .config());
    Balancer warm =
        BalancerFactory.build(c.service("web").orElseThrow(), BalancerFactory.Options.NONE);
    Balancer alt1 =
        BalancerFactory.build(
            c.service("web").orElseThrow(), new BalancerFactory.Options(null, null, 1));
    for (int i = 0; i < 300; i++) {
      assertThat(warm.pick("k" + i)).isEqualTo(alt1.pick("k" + i));
    }
  }

  @Test
  void kernelSchedulerFromConfig() throws Exception {
    Balancer b =
        BalancerFactory.build(
            config().service("kernel-rr").orElseThrow(), BalancerFactory.Options.NONE);
    assertThat(b).isInstanceOf(SchedulerBalancer.class);
    assertThat(b.algorithm()).isEqualTo("rr");
    assertThat(b.setUp("127.0.0.1:9001", false)).isTrue();
    assertThat(b.pick("10.1.1.1")).isEqualTo("127.0.0.1:9002");
    assertThat(b.pick("10.1.1.2")).isEqualTo("127.0.0.1:9002");
    assertThat(b.setUp("nope", false)).isFalse();
  }
}

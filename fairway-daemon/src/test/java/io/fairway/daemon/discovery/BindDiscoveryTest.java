package io.fairway.daemon.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.config.model.Config;
import io.fairway.config.model.RealServer;
import io.fairway.daemon.balance.Balancer;
import io.fairway.daemon.balance.BalancerFactory;
import io.fairway.plan.PlanBuilder;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * real_server_dns against BIND's named with a dynamic zone: nsupdate changes the answer while named
 * runs, NXDOMAIN is held for {@code hold}, a truncated UDP answer is completed over TCP, and two
 * independent resolver-and-plan instances choose alike per key while named rotates the order.
 */
class BindDiscoveryTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Named named;

  final List<DnsResolver> resolvers = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    if (named != null) {
      named.close();
    }
    resolvers.forEach(DnsResolver::close);
  }

  Discovery discovery(Clock clock) {
    // Generous: on a loaded CI machine named has answered a first query in over two seconds.
    DnsResolver r = new DnsResolver(Duration.ofSeconds(8));
    resolvers.add(r);
    return new Discovery(r, clock);
  }

  Config config(String algo, String blocks) {
    String text =
        "virtual_server 127.0.0.1 80 {\n    protocol TCP\n    lb_algo "
            + algo
            + "\n"
            + blocks.replace("NS", "nameserver 127.0.0.1 " + named.port)
            + "}\n";
    return KeepalivedConfig.parse("test.conf", text, dir, ParseOptions.defaults()).config();
  }

  static List<String> names(Config c) {
    return c.virtualServers().get(0).realServers().stream().map(RealServer::name).toList();
  }

  static List<Double> weights(Config c) {
    return c.virtualServers().get(0).realServers().stream().map(RealServer::weight).toList();
  }

  /** A clock the test moves by hand, so that {@code hold} runs out without waiting for it. */
  static final class StepClock extends Clock {
    volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  @Test
  void nsupdateChangesAreFollowedNxdomainIsHeldAndASilentServerChangesNothing() throws Exception {
    named =
        new Named(
            dir,
            "web1 IN A 127.0.0.11\nweb2 IN A 127.0.0.12\n"
                + "_web._tcp IN SRV 0 5 8082 web2\n_web._tcp IN SRV 0 3 8081 web1\n");
    Config c =
        config(
            "mh",
            "    real_server_dns _web._tcp.pool.test {\n        type SRV\n        NS\n"
                + "        hold 30\n        weight srv\n    }\n");
    StepClock clock = new StepClock();
    Discovery d = discovery(clock);
    d.refresh(c).join();
    assertThat(names(d.expand(c))).containsExactly("web1.pool.test:8081", "web2.pool.test:8082");

    // A server appears, without a restart of named.
    named.update(
        "update add web3.pool.test 1 A 127.0.0.13",
        "update add _web._tcp.pool.test 1 SRV 0 1 8083 web3.pool.test.");
    assertThat(d.refresh(c).join()).isTrue();
    assertThat(names(d.expand(c)))
        .containsExactly("web1.pool.test:8081", "web2.pool.test:8082", "web3.pool.test:8083");

    // One leaves: drained (weight 0, after the others) for hold, then removed; then comes back.
    named.update("update delete _web._tcp.pool.test SRV 0 5 8082 web2.pool.test.");
    assertThat(d.refresh(c).join()).isTrue();
    Config drained = d.expand(c);
    assertThat(names(drained))
        .containsExactly("web1.pool.test:8081", "web3.pool.test:8083", "web2.pool.test:8082");
    assertThat(weights(drained)).containsExactly(3.0, 1.0, 0.0);
    assertThat(d.states().get(0).draining()).containsExactly("web2.pool.test:8082");
    clock.now = clock.now.plusSeconds(29);
    assertThat(d.refresh(c).join()).isFalse();
    clock.now = clock.now.plusSeconds(2);
    assertThat(d.refresh(c).join()).isTrue();
    assertThat(names(d.expand(c))).containsExactly("web1.pool.test:8081", "web3.pool.test:8083");
    named.update("update add _web._tcp.pool.test 1 SRV 0 5 8082 web2.pool.test.");
    assertThat(d.refresh(c).join()).isTrue();
    assertThat(names(d.expand(c)))
        .containsExactly("web1.pool.test:8081", "web2.pool.test:8082", "web3.pool.test:8083");

    // The name goes: NXDOMAIN keeps the last answer for hold, then drains the block's servers
    // for hold, then removes them.
    named.update("update delete _web._tcp.pool.test SRV");
    assertThat(d.refresh(c).join()).isFalse();
    Discovery.BlockState s = d.states().get(0);
    assertThat(s.lastAnswer().outcome()).isEqualTo(Answer.Outcome.GONE);
    assertThat(s.lastAnswer().error()).isEqualTo("NXDOMAIN");
    assertThat(weights(d.expand(c))).containsExactly(3.0, 5.0, 1.0);
    clock.now = clock.now.plusSeconds(29);
    assertThat(d.refresh(c).join()).isFalse();
    clock.now = clock.now.plusSeconds(2);
    assertThat(d.refresh(c).join()).isTrue();
    assertThat(weights(d.expand(c))).containsExactly(0.0, 0.0, 0.0);
    clock.now = clock.now.plusSeconds(31);
    assertThat(d.refresh(c).join()).isTrue();
    assertThat(names(d.expand(c))).isEmpty();
    assertThat(d.states().get(0).resolutions())
        .containsEntry(Answer.Outcome.FOUND, 6L)
        .containsEntry(Answer.Outcome.GONE, 4L);

    // Back again; then named goes away: a failed query changes nothing, for ever.
    named.update("update add _web._tcp.pool.test 1 SRV 0 5 8082 web2.pool.test.");
    assertThat(d.refresh(c).join()).isTrue();
    assertThat(names(d.expand(c))).containsExactly("web2.pool.test:8082");
    named.stop();
    clock.now = clock.now.plusSeconds(3600);
    assertThat(d.refresh(c).join()).isFalse();
    assertThat(d.states().get(0).lastAnswer().outcome()).isEqualTo(Answer.Outcome.FAILED);
    assertThat(names(d.expand(c))).containsExactly("web2.pool.test:8082");
  }

  @Test
  void higherSrvPrioritiesAreBackupsUsedWhileNoLowerTargetResolves() throws Exception {
    named =
        new Named(
            dir,
            "main1 IN A 127.0.0.51\nspare IN A 127.0.0.59\n"
                + "_app._tcp IN SRV 0 1 8081 main1\n_app._tcp IN SRV 0 1 8082 main2\n"
                + "_app._tcp IN SRV 10 1 8089 spare\n");
    Config c =
        config(
            "rr",
            "    real_server_dns _app._tcp.pool.test {\n        type SRV\n        NS\n"
                + "        hold 30\n    }\n");
    StepClock clock = new StepClock();
    Discovery d = discovery(clock);
    d.refresh(c).join();
    // Priority 0 is in use (main1 resolves; main2 has no address yet): the spare is its backup,
    // tier 1, which the applier keeps out of the table while main1 is up.
    assertThat(tiers(d.expand(c)))
        .containsExactly("main1.pool.test:8081=0", "spare.pool.test:8089=1");

    // main1 left: drained for hold; the spare is renumbered to tier 0 in place — it did not leave.
    named.update("update delete main1.pool.test A");
    assertThat(d.refresh(c).join()).isTrue();
    assertThat(tiers(d.expand(c)))
        .containsExactly("spare.pool.test:8089=0", "main1.pool.test:8081=0");
    assertThat(leaving(d)).containsExactly("main1.pool.test:8081");
    assertThat(d.states().get(0).draining()).containsExactly("main1.pool.test:8081");

    named.update("update add main2.pool.test 1 A 127.0.0.52");
    assertThat(d.refresh(c).join()).isTrue();
    assertThat(tiers(d.expand(c)))
        .containsExactly(
            "main2.pool.test:8082=0", "spare.pool.test:8089=1", "main1.pool.test:8081=0");
    assertThat(leaving(d)).containsExactly("main1.pool.test:8081");

    // After hold only main1 goes; nothing else was leaving.
    clock.now = clock.now.plusSeconds(31);
    assertThat(d.refresh(c).join()).isTrue();
    assertThat(tiers(d.expand(c)))
        .containsExactly("main2.pool.test:8082=0", "spare.pool.test:8089=1");
    assertThat(leaving(d)).isEmpty();
  }

  static List<String> leaving(Discovery d) {
    return d.states().get(0).leaving().keySet().stream().map(Answer.Member::name).toList();
  }

  /** Each real server's name and backup tier. */
  static List<String> tiers(Config c) {
    return c.virtualServers().get(0).realServers().stream()
        .map(rs -> rs.name() + "=" + rs.tier())
        .toList();
  }

  @Test
  void aTruncatedUdpAnswerIsCompletedOverTcpAndCutAtMaxServers() throws Exception {
    StringBuilder zone = new StringBuilder();
    for (int i = 1; i <= 60; i++) {
      zone.append("big IN A 127.0.1.").append(i).append('\n');
    }
    named = new Named(dir, zone.toString());
    // Over UDP alone named's answer is truncated (60 A records do not fit in 512 bytes).
    String udp = named.digUdp("big.pool.test", "A");
    assertThat(udp).containsPattern("flags:[a-z ]* tc[ ;]");
    Config c =
        config(
            "rr",
            "    real_server_dns big.pool.test {\n        type A\n        port 8080\n        NS\n"
                + "    }\n");
    Discovery d = discovery(Clock.systemUTC());
    assertThat(d.refresh(c).join()).isTrue();
    assertThat(d.states().get(0).members()).hasSize(60);
    assertThat(names(d.expand(c))).hasSize(60).contains("127.0.1.1:8080", "127.0.1.60:8080");

    Config cut =
        config(
            "rr",
            "    real_server_dns big.pool.test {\n        type A\n        port 8080\n        NS\n"
                + "        max_servers 25\n    }\n");
    Discovery d2 = discovery(Clock.systemUTC());
    d2.refresh(cut).join();
    Config e = d2.expand(cut);
    // The lowest addresses are kept, whatever order named sent them in.
    assertThat(names(e)).hasSize(25).startsWith("127.0.1.1:8080", "127.0.1.2:8080");
    assertThat(names(e).get(24)).isEqualTo("127.0.1.25:8080");
    assertThat(d2.states().get(0).used()).hasSize(25);
    assertThat(d2.states().get(0).members()).hasSize(60);
  }

  @Test
  void twoInstancesChooseAlikePerKeyWhileTheAnswerOrderRotates() throws Exception {
    StringBuilder zone = new StringBuilder();
    for (int i = 1; i <= 8; i++) {
      zone.append("pool IN A 127.0.2.").append(i).append('\n');
    }
    named = new Named(dir, zone.toString());
    // named rotates: two queries in a row list the records in different orders.
    assertThat(firstAddress(named.digUdp("pool.pool.test", "A")))
        .isNotEqualTo(firstAddress(named.digUdp("pool.pool.test", "A")));
    for (String algo : List.of("mh", "sh")) {
      Config c =
          config(
              algo,
              "    real_server_dns pool.pool.test {\n        type A\n        port 8080\n"
                  + "        NS\n    }\n");
      Discovery one = discovery(Clock.systemUTC());
      Discovery two = discovery(Clock.systemUTC());
      one.refresh(c).join();
      two.refresh(c).join();
      two.refresh(c).join(); // a different position in named's rotation than the first
      Balancer a = balancer(one.expand(c));
      Balancer b = balancer(two.expand(c));
      assertThat(a.servers()).hasSize(8).isEqualTo(b.servers());
      List<String> picksA = new ArrayList<>();
      List<String> picksB = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        String key = "198.51.100." + (i % 250) + ":" + (1024 + i);
        picksA.add(a.pick(key));
        picksB.add(b.pick(key));
      }
      assertThat(picksA).isEqualTo(picksB).doesNotContainNull();
      assertThat(picksA.stream().distinct().count()).isGreaterThan(1);
    }
  }

  private static Balancer balancer(Config c) throws Exception {
    var plan = PlanBuilder.build(c);
    return BalancerFactory.build(plan.services().get(0), BalancerFactory.Options.NONE);
  }

  private static String firstAddress(String dig) {
    Matcher m = Pattern.compile("(?m)^[^;].*\\sIN\\s+A\\s+(\\S+)").matcher(dig);
    if (!m.find()) {
      throw new AssertionError("no A record in: " + dig);
    }
    return m.group(1);
  }
}

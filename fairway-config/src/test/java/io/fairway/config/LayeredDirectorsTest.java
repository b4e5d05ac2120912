package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.config.model.Config;
import io.fairway.config.model.DirectorGroup;
import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.Scheduler;
import io.fairway.config.model.ShardParam;
import io.fairway.config.model.VirtualServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Layered directors and shared shard parameter sets (Fairway extensions): {@code director NAME { }}
 * groups, the virtual_server's {@code members}, top-level {@code shard_param} with {@code
 * associate}, {@code alt_header}.
 */
class LayeredDirectorsTest {

  static String rs(int i) {
    return "  real_server 127.0.0.1 " + (9000 + i) + " {\n    name b" + i + "\n  }\n";
  }

  static final String SERVERS = rs(1) + rs(2) + rs(3) + rs(4);

  static final String FALLBACK =
      "virtual_server 127.0.0.1 8080 {\n  name web\n  lb_algo fallback\n"
          + "  lb_kind HTTP\n  members primary spare\n"
          + "  director primary {\n    lb_algo shard\n    shard {\n      by URL\n      replicas 25\n"
          + "    }\n    members b1 b2\n  }\n"
          + "  director spare {\n    lb_algo shard\n    shard {\n      by URL\n    }\n"
          + "    members b3 b4\n  }\n"
          + SERVERS
          + "}\n";

  static final String PARAMS =
      "shard_param shared {\n  by URL\n  healthy ALL\n  alt 1\n" + "  rampup off\n}\n";

  static Config parse(String text) {
    return Fixtures.parse(text).config();
  }

  @Test
  void aFallbackOverTwoShardsIsTheModel() {
    VirtualServer vs = parse(FALLBACK).virtualServer("web").orElseThrow();
    assertThat(vs.scheduling().scheduler()).isEqualTo(Scheduler.FALLBACK);
    assertThat(vs.scheduling().layout().members()).containsExactly("primary", "spare");
    assertThat(vs.scheduling().layout().groups())
        .extracting(DirectorGroup::name)
        .containsExactly("primary", "spare");
    DirectorGroup primary = vs.scheduling().layout().group("primary").orElseThrow();
    assertThat(primary.scheduler()).isEqualTo(Scheduler.SHARD);
    assertThat(primary.members()).containsExactly("b1", "b2");
    assertThat(((DirectorSpec.Shard) primary.director()).replicas()).isEqualTo(25);
    // Every real server stays a real server of the service: checked, in the table.
    assertThat(vs.realServers()).hasSize(4);
  }

  @Test
  void aShardParamIsSharedWithVarnishsPrecedence() {
    Config c =
        parse(
            PARAMS
                + "virtual_server 127.0.0.1 8080 {\n  name a\n  lb_algo shard\n  lb_kind HTTP\n"
                + "  shard {\n    associate shared\n  }\n"
                + SERVERS
                + "}\n"
                + "virtual_server 127.0.0.1 8081 {\n  name b\n  lb_algo shard\n  lb_kind HTTP\n"
                + "  alt_header X-Alt\n  shard {\n    associate shared\n    healthy CHOSEN\n"
                + "    replicas 25\n  }\n"
                + SERVERS
                + "}\n");
    assertThat(c.shardParams())
        .singleElement()
        .isEqualTo(
            new ShardParam(
                io.fairway.config.model.base.Location.NONE,
                "shared",
                Optional.of(KeySource.of(KeySource.Kind.URL)),
                Optional.of(DirectorSpec.Healthy.ALL),
                Optional.empty(),
                Optional.of(false),
                Optional.of(1)));
    DirectorSpec.Shard a =
        (DirectorSpec.Shard) c.virtualServer("a").orElseThrow().scheduling().director();
    // What the set says, over Varnish's defaults (by HASH, CHOSEN, alt 0, rampup on).
    assertThat(a)
        .isEqualTo(
            new DirectorSpec.Shard(
                67,
                KeySource.of(KeySource.Kind.URL),
                DirectorSpec.Healthy.ALL,
                0,
                java.time.Duration.ZERO,
                1,
                false,
                Optional.of("shared")));
    // The service's own setting over the set's.
    DirectorSpec.Shard b =
        (DirectorSpec.Shard) c.virtualServer("b").orElseThrow().scheduling().director();
    assertThat(b.healthy()).isEqualTo(DirectorSpec.Healthy.CHOSEN);
    assertThat(b.alt()).isEqualTo(1);
    assertThat(b.replicas()).isEqualTo(25);
    assertThat(c.virtualServer("b").orElseThrow().scheduling().layout().altHeader())
        .contains("X-Alt");
    assertThat(c.virtualServer("b").orElseThrow().scheduling().layout().layered()).isFalse();
  }

  @Test
  void aShardParamMayComeAfterTheServicesThatUseIt() {
    Config c =
        parse(
            "virtual_server 127.0.0.1 8080 {\n  name a\n  lb_algo shard\n"
                + "  lb_kind HTTP\n  shard {\n    associate shared\n  }\n"
                + SERVERS
                + "}\n"
                + PARAMS);
    assertThat(
            ((DirectorSpec.Shard) c.virtualServer("a").orElseThrow().scheduling().director()).alt())
        .isEqualTo(1);
  }

  @Test
  void directorsNestAndMayNameOnesWrittenAfterThem() {
    Config c =
        parse(
            "virtual_server 127.0.0.1 8080 {\n  name web\n  lb_algo round_robin\n"
                + "  lb_kind PROXY\n  members outer b4\n"
                + "  director outer {\n    lb_algo fallback\n    members inner b3\n  }\n"
                + "  director inner {\n    lb_algo random\n    members b1 b2\n  }\n"
                + SERVERS
                + "}\n");
    VirtualServer vs = c.virtualServer("web").orElseThrow();
    assertThat(vs.scheduling().layout().group("outer").orElseThrow().members())
        .containsExactly("inner", "b3");
  }

  @Test
  void theDumpWritesItAndReadsBackTheSame() {
    Config c =
        parse(
            PARAMS
                + FALLBACK
                    .replace(
                        "by URL\n    }\n    members b3", "associate shared\n    }\n    members b3")
                    .replace("members primary spare", "members primary spare\n  alt_header X-Alt"));
    String dump = KeepalivedConfig.dump(c);
    assertThat(dump)
        .contains(
            "shard_param shared {",
            "director primary {",
            "members b1 b2",
            "associate shared",
            "alt_header X-Alt",
            "members primary spare");
    Config again =
        KeepalivedConfig.parse("dump.conf", dump, Path.of("."), Fixtures.OPTIONS).config();
    assertThat(again).isEqualTo(c);
    assertThat(KeepalivedConfig.dump(again)).isEqualTo(dump);
  }

  @Test
  void anUnusedServerOrDirectorIsAWarning() {
    ParseResult r = Fixtures.parse(FALLBACK.replace("members primary spare", "members primary"));
    assertThat(r.warnings())
        .extracting(Diagnostic::message)
        .anySatisfy(m -> assertThat(m).contains("director spare is a member of no director"));
    assertThat(r.warnings())
        .extracting(Diagnostic::message)
        .anySatisfy(m -> assertThat(m).contains("real_server b3 is in no director"));
  }

  static final String HEAD =
      "virtual_server 127.0.0.1 8080 {\n  lb_algo fallback\n" + "  lb_kind HTTP\n";

  static Stream<Arguments> badConfigs() {
    return Stream.of(
        Arguments.of(
            "unknown member",
            HEAD
                + "  members primary\n  director primary {\n"
                + "    lb_algo shard\n    members b1 b9\n  }\n"
                + SERVERS
                + "}\n",
            5,
            "members: 'b9' is neither a real_server nor a director of this virtual_server"),
        Arguments.of(
            "unknown member at the top",
            HEAD
                + "  members primray\n"
                + "  director primary {\n    lb_algo shard\n    members b1\n  }\n"
                + SERVERS
                + "}\n",
            4,
            "'primray' is neither a real_server nor a director of this virtual_server (did you"
                + " mean 'primary'?)"),
        Arguments.of(
            "cycle",
            HEAD
                + "  members x\n  director x {\n    lb_algo fallback\n"
                + "    members y b1\n  }\n  director y {\n    lb_algo fallback\n    members x b2\n"
                + "  }\n"
                + SERVERS
                + "}\n",
            5,
            "its members lead back to it (x -> y -> x)"),
        Arguments.of(
            "member of itself",
            HEAD
                + "  members x\n  director x {\n"
                + "    lb_algo fallback\n    members x b1\n  }\n"
                + SERVERS
                + "}\n",
            7,
            "director x cannot be a member of itself"),
        Arguments.of(
            "kernel scheduler in a layer",
            HEAD
                + "  members x\n  director x {\n"
                + "    lb_algo wrr\n    members b1\n  }\n"
                + SERVERS
                + "}\n",
            6,
            "lb_algo 'wrr' is not a Varnish director"),
        Arguments.of(
            "members under a kernel scheduler",
            "virtual_server 127.0.0.1 8080 {\n"
                + "  lb_algo rr\n  lb_kind NAT\n  protocol TCP\n  members b1\n"
                + SERVERS
                + "}\n",
            5,
            "'members' needs lb_algo to be a Varnish director"),
        Arguments.of(
            "directors without members",
            HEAD
                + "  director x {\n"
                + "    lb_algo shard\n    members b1\n  }\n"
                + SERVERS
                + "}\n",
            4,
            "director blocks need a 'members' line"),
        Arguments.of(
            "director without lb_algo",
            HEAD + "  members x\n  director x {\n" + "    members b1\n  }\n" + SERVERS + "}\n",
            5,
            "director x needs lb_algo"),
        Arguments.of(
            "director named like a real server",
            HEAD
                + "  members b1\n  director b1 {\n"
                + "    lb_algo shard\n    members b2\n  }\n"
                + SERVERS
                + "}\n",
            5,
            "has the name of a real_server"),
        Arguments.of(
            "two keys",
            HEAD
                + "  members x y\n"
                + "  director x {\n    lb_algo shard\n    shard {\n      by URL\n    }\n"
                + "    members b1\n  }\n"
                + "  director y {\n    lb_algo hash\n    hash {\n      by HEADER X-User\n    }\n"
                + "    members b2\n  }\n"
                + SERVERS
                + "}\n",
            12,
            "director y hashes by HEADER X-User but director x hashes by URL"),
        Arguments.of(
            "unknown shard_param",
            PARAMS
                + HEAD.replace("fallback", "shard")
                + "  shard {\n    associate shraed\n  }\n"
                + SERVERS
                + "}\n",
            11,
            "associate: no shard_param named 'shraed' (did you mean 'shared'?)"),
        Arguments.of(
            "a shard_param's header on L4",
            "shard_param p {\n  by HEADER X-User\n}\n"
                + "virtual_server 127.0.0.1 8080 {\n  lb_algo shard\n  lb_kind PROXY\n  shard {\n"
                + "    associate p\n  }\n"
                + SERVERS
                + "}\n",
            8,
            "associate p: its 'by HEADER X-User' (at test.conf:1) needs lb_kind HTTP"),
        Arguments.of("bad alt", "shard_param p {\n  alt -1\n}\n", 2, "alt -1 is out of range"),
        Arguments.of("bad warmup", "shard_param p {\n  warmup 2\n}\n", 2, "warmup"),
        Arguments.of(
            "bad healthy",
            "shard_param p {\n  healthy SOME\n}\n",
            2,
            "'SOME' is not CHOSEN, IGNORE or ALL"),
        Arguments.of("bad rampup", "shard_param p {\n  rampup maybe\n}\n", 2, "not a boolean"),
        Arguments.of(
            "unknown shard_param keyword",
            "shard_param p {\n  healty ALL\n}\n",
            2,
            "unknown keyword 'healty' in shard_param (did you mean 'healthy'?)"),
        Arguments.of(
            "duplicate shard_param",
            "shard_param p {\n}\nshard_param p {\n}\n",
            3,
            "duplicate shard_param 'p'"),
        Arguments.of(
            "alt_header on L4",
            "virtual_server 127.0.0.1 8080 {\n  lb_algo shard\n"
                + "  lb_kind PROXY\n  alt_header X-Alt\n"
                + SERVERS
                + "}\n",
            4,
            "alt_header reads a request header and needs lb_kind HTTP"),
        Arguments.of(
            "alt_header without a shard",
            "virtual_server 127.0.0.1 8080 {\n"
                + "  lb_algo hash\n  lb_kind HTTP\n  alt_header X-Alt\n"
                + SERVERS
                + "}\n",
            4,
            "alt_header applies to shard directors"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badConfigs")
  void oneLineErrorWithFileAndLine(String name, String text, int line, String message) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e).as("expected a ConfigException").isNotNull();
    assertThat(e.errors())
        .anySatisfy(
            d -> {
              assertThat(d.file()).isEqualTo("test.conf");
              assertThat(d.line()).isEqualTo(line);
              assertThat(d.message()).contains(message);
            });
    for (String l : e.getMessage().split("\n")) {
      assertThat(l).matches("test\\.conf:\\d+: .*");
    }
  }

  @Test
  void aServiceWithoutLayeringIsUnchanged() {
    VirtualServer vs =
        parse(
                "virtual_server 127.0.0.1 8080 {\n  lb_algo shard\n"
                    + "  lb_kind HTTP\n"
                    + SERVERS
                    + "}\n")
            .virtualServers()
            .get(0);
    assertThat(vs.scheduling().layout().layered()).isFalse();
    assertThat(vs.scheduling().layout().groups()).isEqualTo(List.of());
  }
}

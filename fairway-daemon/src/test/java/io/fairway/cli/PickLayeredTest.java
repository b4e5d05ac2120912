package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.varnish.ShardBy;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.director.varnish.ShardHealthy;
import io.fairway.director.varnish.ShardParams;
import io.fairway.director.varnish.VarnishHash;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway pick} on layered directors and shard_param: it names the director a key goes
 * through and the server it ends on, as the data plane resolves it.
 */
class PickLayeredTest {
  /** Why a director here picks a server: each layer keeps one up. */
  private static final String PICKS = "a server of the layer is up";

  @TempDir Path tmp;

  static final String CONF =
      """
      shard_param shared {
        by URL
        healthy ALL
        alt 1
      }
      virtual_server 127.0.0.1 8080 {
        name web
        lb_algo fallback
        lb_kind HTTP
        members primary spare
        director primary {
          lb_algo shard
          shard {
            by URL
          }
          members b1 b2 b3
        }
        director spare {
          lb_algo shard
          shard {
            associate shared
          }
          members b4 b5 b6
        }
        real_server 127.0.0.1 9001 {
          name b1
        }
        real_server 127.0.0.1 9002 {
          name b2
        }
        real_server 127.0.0.1 9003 {
          name b3
        }
        real_server 127.0.0.1 9004 {
          name b4
        }
        real_server 127.0.0.1 9005 {
          name b5
        }
        real_server 127.0.0.1 9006 {
          name b6
        }
      }
      virtual_server 127.0.0.1 8081 {
        name plain
        lb_algo shard
        lb_kind HTTP
        shard {
          associate shared
        }
        real_server 127.0.0.1 9001 {
          name b1
        }
        real_server 127.0.0.1 9002 {
          name b2
        }
        real_server 127.0.0.1 9003 {
          name b3
        }
      }
      """;

  CliRun run(String stdin, String... args) throws Exception {
    Path f = tmp.resolve("keepalived.conf");
    Files.writeString(f, CONF);
    String[] full = new String[args.length + 3];
    full[0] = "pick";
    full[1] = "-f";
    full[2] = f.toString();
    System.arraycopy(args, 0, full, 3, args.length);
    return CliRun.run(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), full);
  }

  static ShardDirector shard(List<String> names, int alt, ShardHealthy healthy) {
    ShardDirector d =
        new ShardDirector(
            "s",
            new ShardDirector.Settings(
                67, 0, 0, new ShardParams(ShardBy.URL, healthy, true, -1, alt)),
            null,
            null);
    for (String n : names) {
      d.add(Member.of(Backend.named(n)));
    }
    return d;
  }

  static List<String> keys() {
    List<String> k = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      k.add("/obj/" + i);
    }
    return k;
  }

  @Test
  void namesTheDirectorAndTheServer() throws Exception {
    ShardDirector primary = shard(List.of("b1", "b2", "b3"), 0, ShardHealthy.CHOSEN);
    CliRun r = run(String.join("\n", keys()) + "\n", "--vs", "web");
    assertThat(r.code()).as(r.err()).isZero();
    List<String> want = new ArrayList<>();
    for (String k : keys()) {
      want.add(
          "primary/"
              + Objects.requireNonNull(primary.pick(Request.ofKey(VarnishHash.hash32(k))), PICKS)
                  .name());
    }
    assertThat(r.out().lines().toList()).isEqualTo(want);
  }

  @Test
  void withTheFirstShardDownTheSecondAnswersWithItsAssociatedSet() throws Exception {
    ShardDirector spare = shard(List.of("b4", "b5", "b6"), 1, ShardHealthy.ALL);
    spare.setHealthy("b5", false);
    CliRun r = run(String.join("\n", keys()) + "\n", "--vs", "web", "--down", "b1,b2,b3,b5");
    assertThat(r.code()).as(r.err()).isZero();
    List<String> want = new ArrayList<>();
    for (String k : keys()) {
      want.add(
          "spare/"
              + Objects.requireNonNull(spare.pick(Request.ofKey(VarnishHash.hash32(k))), PICKS)
                  .name());
    }
    assertThat(r.out().lines().toList()).isEqualTo(want);
    // --stats counts servers, layers or not.
    CliRun s =
        run(String.join("\n", keys()) + "\n", "--vs", "web", "--down", "b1,b2,b3", "--stats");
    assertThat(s.code()).as(s.err()).isZero();
    assertThat(s.out()).contains("b4", "b6").doesNotContain("primary/");
  }

  @Test
  void altOverridesTheAssociatedSetsAlt() throws Exception {
    ShardDirector byDefault = shard(List.of("b1", "b2", "b3"), 1, ShardHealthy.ALL);
    ShardDirector asked = shard(List.of("b1", "b2", "b3"), 0, ShardHealthy.ALL);
    CliRun plain = run(String.join("\n", keys()) + "\n", "--vs", "plain");
    CliRun alt0 = run(String.join("\n", keys()) + "\n", "--vs", "plain", "--alt", "0");
    assertThat(plain.code()).as(plain.err()).isZero();
    assertThat(alt0.code()).as(alt0.err()).isZero();
    List<String> want = new ArrayList<>();
    List<String> want0 = new ArrayList<>();
    for (String k : keys()) {
      want.add(
          Objects.requireNonNull(byDefault.pick(Request.ofKey(VarnishHash.hash32(k))), PICKS)
              .name());
      want0.add(
          Objects.requireNonNull(asked.pick(Request.ofKey(VarnishHash.hash32(k))), PICKS).name());
    }
    assertThat(plain.out().lines().toList()).isEqualTo(want);
    assertThat(alt0.out().lines().toList()).isEqualTo(want0).isNotEqualTo(want);
  }

  @Test
  void downNamesAServerOfAnyLayer() throws Exception {
    CliRun r = run("/x\n", "--vs", "web", "--down", "b9");
    assertThat(r.code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err()).contains("--down: no real_server named 'b9'");
  }
}

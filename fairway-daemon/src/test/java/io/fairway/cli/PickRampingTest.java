package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway pick --ramping NAME=ELAPSED}: the what-if answers follow the ramp as the userspace
 * scheduler applies it, frozen where it was put, and say where the ramp is.
 */
class PickRampingTest {
  @TempDir Path tmp;

  Path conf() throws Exception {
    Path p = tmp.resolve("keepalived.conf");
    Files.writeString(
        p,
        """
        virtual_server 10.18.0.1 80 {
            name web
            lb_algo rr
            lb_kind NAT
            protocol TCP
            slow_start 10
            real_server 10.18.0.2 80 { weight 10 }
            real_server 10.18.0.3 80 { weight 10 }
            real_server 10.18.0.4 80 { weight 10 }
        }
        virtual_server 10.18.0.1 81 {
            name robin
            lb_algo round_robin
            lb_kind PROXY
            protocol TCP
            slow_start 20
            real_server 10.18.0.2 81 { weight 4 }
            real_server 10.18.0.3 81 { weight 4 }
        }
        virtual_server 10.18.0.1 82 {
            name hashed
            lb_algo sh
            lb_kind NAT
            protocol TCP
            slow_start 10
            real_server 10.18.0.2 82 { }
            real_server 10.18.0.3 82 { }
        }
        virtual_server 10.18.0.1 84 {
            name sharded
            lb_algo shard
            lb_kind PROXY
            protocol TCP
            slow_start 10
            real_server 10.18.0.2 84 { }
            real_server 10.18.0.3 84 { }
        }
        virtual_server 10.18.0.1 83 {
            name plain
            lb_algo rr
            lb_kind NAT
            protocol TCP
            real_server 10.18.0.2 83 { }
        }
        """);
    return p;
  }

  static CliRun pick(String stdin, String... args) {
    String[] full = new String[args.length + 1];
    full[0] = "pick";
    System.arraycopy(args, 0, full, 1, args.length);
    return CliRun.run(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), full);
  }

  static String keys(int n) {
    return String.join("\n", Collections.nCopies(n, "x")) + "\n";
  }

  @Test
  void aRampingServerTakesItsFractionOfRrsTurnsAndIsShown() throws Exception {
    CliRun r =
        pick(
            keys(3000),
            "-f",
            conf().toString(),
            "--vs",
            "web",
            "--stats",
            "--ramping",
            "10.18.0.4:80=2.5s");
    assertThat(r.code()).as(r.err()).isZero();
    // 25% of its turns: about 0.25 / 2.25 of the keys; the two others split the rest.
    String out = r.out();
    assertThat(out)
        .contains(
            "ramping: 10.18.0.4:80 at 2500ms of 10s: 25% of its share"
                + " (effective weight 2.5 of 10; on the kernel, table weight 3)");
    List<String> row = out.lines().filter(l -> l.startsWith("10.18.0.4:80 ")).toList();
    assertThat(row).hasSize(1);
    long keys = Long.parseLong(row.get(0).trim().split("\\s+")[1]);
    assertThat(keys).isBetween(3000L * 25 / 225 - 5, 3000L * 25 / 225 + 5);
  }

  @Test
  void perKeyOutputStaysOneNamePerLineWithTheRampOnStandardError() throws Exception {
    CliRun r =
        pick(keys(200), "-f", conf().toString(), "--vs", "robin", "--ramping", "10.18.0.3:81=2s");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.lines()).hasSize(200);
    // round_robin at 10%: a share of 0.1 / (0.1 + 1), about 18 of 200.
    assertThat(r.lines().stream().filter(l -> l.equals("10.18.0.3:81")).count())
        .isBetween(16L, 20L);
    assertThat(r.err())
        .contains(
            "ramping: 10.18.0.3:81 at 2s of 20s: 10% of its share"
                + " (effective weight 0.4 of 4; on the kernel, table weight 1)");
  }

  @Test
  void shardTakesTheRampAsItsRampup() throws Exception {
    List<String> keys = PickCommandTest.randomKeys(4000);
    String in = String.join("\n", keys) + "\n";
    CliRun plain = pick(in, "-f", conf().toString(), "--vs", "sharded", "--stats");
    CliRun r =
        pick(
            in,
            "-f",
            conf().toString(),
            "--vs",
            "sharded",
            "--stats",
            "--seed",
            "1",
            "--ramping",
            "10.18.0.3:84=2s");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains(
            "ramping: 10.18.0.3:84 at 2s of 10s: 20% of its share"
                + " (effective weight 0.2 of 1)");
    assertThat(keys(r, "10.18.0.3:84"))
        .as("fewer keys while it ramps up")
        .isLessThan(keys(plain, "10.18.0.3:84") / 2);
  }

  static long keys(CliRun r, String server) {
    return r.out()
        .lines()
        .filter(l -> l.startsWith(server + " "))
        .mapToLong(l -> Long.parseLong(l.trim().split("\\s+")[1]))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void badRampsAreOneLineErrors() throws Exception {
    String f = conf().toString();
    PickCommandTest.assertOneLineError(
        pick("", "-f", f, "--vs", "hashed", "--ramping", "10.18.0.2:82=1s"),
        "--ramping: 10.18.0.2:82: lb_algo sh does not ramp");
    PickCommandTest.assertOneLineError(
        pick("", "-f", f, "--vs", "plain", "--ramping", "10.18.0.2:83=1s"), "has no slow_start");
    PickCommandTest.assertOneLineError(
        pick("", "-f", f, "--vs", "web", "--ramping", "10.18.0.9:80=1s"),
        "no real_server named '10.18.0.9:80'");
    PickCommandTest.assertOneLineError(
        pick("", "-f", f, "--vs", "web", "--ramping", "10.18.0.2:80"), "is not NAME=ELAPSED");
    PickCommandTest.assertOneLineError(
        pick("", "-f", f, "--vs", "web", "--ramping", "10.18.0.2:80=soon"), "expected a duration");
  }
}

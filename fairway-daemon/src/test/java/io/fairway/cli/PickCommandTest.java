package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.director.varnish.ShardParams;
import io.fairway.director.varnish.VarnishHash;
import java.io.ByteArrayInputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PickCommandTest {

  @TempDir Path tmp;

  static Path fixture(String name) {
    try {
      return Path.of(PickCommandTest.class.getResource("/pick/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static CliRun run(String stdin, String... args) {
    String[] full = new String[args.length + 1];
    full[0] = "pick";
    System.arraycopy(args, 0, full, 1, args.length);
    return CliRun.run(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), full);
  }

  static String conf() {
    return fixture("directors.conf").toString();
  }

  static void assertOneLineError(CliRun r, String... contains) {
    assertThat(r.code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
    assertThat(r.err()).startsWith("fairway: ").doesNotContain("Exception").doesNotContain("\tat ");
    for (String c : contains) {
      assertThat(r.err()).contains(c);
    }
  }

  static List<String> randomKeys(int n) {
    Random r = new Random(7);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add("/k/" + Long.toHexString(r.nextLong()));
    }
    return keys;
  }

  @Test
  void shardPrintsWhatTheLibraryChoosesForEachKey() {
    ShardDirector d =
        new ShardDirector(
            "web", new ShardDirector.Settings(37, 0, 0, ShardParams.DEFAULTS), null, null);
    d.add(Member.of(Backend.named("b0"), 1).withIdent("node-1"));
    d.add(Member.of(Backend.named("b1"), 2));
    d.add(Member.of(Backend.named("b2"), 1.5).withIdent("alpha"));
    d.add(Member.of(Backend.named("b3"), 1));
    List<String> keys = randomKeys(2000);
    CliRun r = run(String.join("\n", keys) + "\n", "-f", conf(), "--vs", "web");
    assertThat(r.code()).as(r.err()).isZero();
    List<String> expected =
        keys.stream()
            .map(
                k ->
                    Objects.requireNonNull(
                            d.pick(Request.ofKey(VarnishHash.hash32(k))), "every server is up")
                        .name())
            .toList();
    assertThat(r.lines()).isEqualTo(expected);
    assertThat(Set(r.lines())).containsExactlyInAnyOrder("b0", "b1", "b2", "b3");
  }

  static java.util.Set<String> Set(List<String> l) {
    return new java.util.HashSet<>(l);
  }

  @Test
  void shardAltAndHealthyOverrides() {
    List<String> keys = randomKeys(500);
    String in = String.join("\n", keys) + "\n";
    List<String> first = run(in, "-f", conf(), "--vs", "web").lines();
    List<String> alt1 = run(in, "-f", conf(), "--vs", "web", "--alt", "1").lines();
    for (int i = 0; i < keys.size(); i++) {
      assertThat(alt1.get(i)).isNotEqualTo(first.get(i));
    }
    // with b1 down, IGNORE still answers b1 for its keys; CHOSEN never does
    List<String> ignore =
        run(in, "-f", conf(), "--vs", "web", "--down", "b1", "--healthy", "ignore").lines();
    List<String> chosen = run(in, "-f", conf(), "--vs", "web", "--down", "b1").lines();
    assertThat(ignore).isEqualTo(first);
    assertThat(chosen).doesNotContain("b1");
  }

  @Test
  void statsWithDownCountsOnlyTheDownServersKeysAsMoved() throws Exception {
    List<String> keys = randomKeys(20000);
    Path file = tmp.resolve("keys.txt");
    Files.write(file, keys);
    List<String> before = run("", "-f", conf(), "--vs", "web", "--keys", file.toString()).lines();
    long onB2 = before.stream().filter("b2"::equals).count();
    CliRun r =
        run("", "-f", conf(), "--vs", "web", "--keys", file.toString(), "--down", "b2", "--stats");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("20000 keys").contains("down: b2");
    assertThat(r.out()).contains("moved: " + onB2 + " of 20000 keys");
    String b2row = r.lines().stream().filter(l -> l.startsWith("b2 ")).findFirst().orElseThrow();
    assertThat(b2row.split("\\s+")[1]).isEqualTo("0");
    assertThat(b2row.split("\\s+")[3]).isEqualTo(Long.toString(onB2));
  }

  @Test
  void statsWithoutDownPrintsShares() {
    CliRun r =
        run(String.join("\n", randomKeys(4000)) + "\n", "-f", conf(), "--vs", "hashed", "--stats");
    assertThat(r.code()).isZero();
    Map<String, String> rows =
        r.lines().stream()
            .skip(2)
            .map(l -> l.split("\\s+"))
            .collect(Collectors.toMap(a -> a[0], a -> a[1]));
    assertThat(rows).containsOnlyKeys("s1", "s2");
    assertThat(Long.parseLong(rows.get("s1")) + Long.parseLong(rows.get("s2"))).isEqualTo(4000);
    assertThat(r.out()).doesNotContain("moved");
  }

  @Test
  void hashDirectorVectorsB00003() {
    CliRun r = run("/1\n/3\n/13\n/8\n\n127.0.0.1\n", "-f", conf(), "--vs", "hashed");
    assertThat(r.lines()).containsExactly("s2", "s1", "s1", "s2", "s1", "s2");
  }

  @Test
  void randomWithSeedOneIsVarnishC00000() {
    CliRun r = run("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "-f", conf(), "--vs", "rnd", "--seed", "1");
    assertThat(r.lines())
        .containsExactly("s3", "s4", "s1", "s1", "s2", "s2", "s3", "s4", "s3", "s3");
  }

  @Test
  void roundRobinUsesDefaultNamesAndFallbackHonoursDown() {
    assertThat(run("x\ny\nz\nw\n", "-f", conf(), "--vs", "127.0.0.1:8082").lines())
        .containsExactly("127.0.0.1:9001", "127.0.0.1:9002", "127.0.0.1:9003", "127.0.0.1:9001");
    assertThat(run("x\n", "-f", conf(), "--vs", "fb").lines()).containsExactly("primary");
    assertThat(run("x\n", "-f", conf(), "--vs", "fb", "--down", "primary").lines())
        .containsExactly("standby");
    assertThat(run("x\n", "-f", conf(), "--vs", "fb", "--down", "primary,standby").lines())
        .containsExactly("-");
  }

  @Test
  void kernelSchedulers() {
    CliRun sh =
        run("10.0.0.1\n10.0.0.1:4000\n[2001:db8::1]:80\n", "-f", conf(), "--vs", "kernel-sh");
    assertThat(sh.code()).as(sh.err()).isZero();
    assertThat(sh.lines()).hasSize(3);
    assertThat(sh.lines().get(0)).isEqualTo(sh.lines().get(1)); // sh ignores the port by default
    CliRun rr = run("a\nb\nc\nd\n", "-f", conf(), "--vs", "kernel-rr");
    assertThat(rr.lines()).hasSize(4).containsOnly("127.0.0.1:9001", "127.0.0.1:9002");
    assertThat(rr.lines().get(0)).isNotEqualTo(rr.lines().get(1));
    assertOneLineError(
        run("10.0.0.1\nnot-an-ip\n", "-f", conf(), "--vs", "kernel-sh"), "<stdin>:2", "not-an-ip");
  }

  @Test
  void connsSnapshotAnswersWhereTheNextConnectionGoesRightNow() {
    // wlc: the less loaded server takes every new connection while the load is held fixed.
    CliRun wlc = run("1\n2\n3\n", "-f", conf(), "--vs", "kernel-wlc", "--conns", "a=3,b=1");
    assertThat(wlc.code()).as(wlc.err()).isZero();
    assertThat(wlc.lines()).containsExactly("b", "b", "b");
    // Without the snapshot each key is one more open connection, so they spread.
    CliRun spread = run("1\n2\n3\n4\n", "-f", conf(), "--vs", "kernel-wlc");
    assertThat(spread.lines()).containsExactlyInAnyOrder("a", "a", "b", "b");
    // Every server at its uthreshold: overflow goes to the sorry server, not nowhere.
    CliRun full = run("1\n", "-f", conf(), "--vs", "kernel-wlc", "--conns", "a=4,b=2/2");
    assertThat(full.code()).as(full.err()).isZero();
    assertThat(full.lines()).containsExactly("127.0.0.1:9009");
    // One server below its uthreshold has room, so the pool takes the connection again.
    CliRun room = run("1\n", "-f", conf(), "--vs", "kernel-wlc", "--conns", "a=4,b=2");
    assertThat(room.lines()).containsExactly("b");
  }

  @Test
  void connsSnapshotHonoursMaxConnsCountingLiveConnectionsOnly() {
    // a at its max_conns of 2: b takes it.
    CliRun one = run("1\n", "-f", conf(), "--vs", "proxy-wlc-max", "--conns", "a=2,b=1");
    assertThat(one.code()).as(one.err()).isZero();
    assertThat(one.lines()).containsExactly("b");
    // Both full: overflow to the sorry server.
    CliRun full = run("1\n", "-f", conf(), "--vs", "proxy-wlc-max", "--conns", "a=2,b=2");
    assertThat(full.lines()).containsExactly("127.0.0.1:9009");
    // Closed (inactive) connections take no slot: a with 1 live and 50 closed still has room, and
    // wlc's 256:1 weighting sends the key there.
    CliRun closed = run("1\n", "-f", conf(), "--vs", "proxy-wlc-max", "--conns", "a=1/50,b=2");
    assertThat(closed.lines()).containsExactly("a");
  }

  @Test
  void connsErrorsAreOneLine() {
    assertOneLineError(
        run("1\n", "-f", conf(), "--vs", "kernel-wlc", "--conns", "zed=1"), "--conns", "zed");
    assertOneLineError(
        run("1\n", "-f", conf(), "--vs", "kernel-wlc", "--conns", "a=-1"), "--conns", "a=-1");
    assertOneLineError(
        run("1\n", "-f", conf(), "--vs", "web", "--conns", "a=1"), "--conns", "kernel schedulers");
  }

  @Test
  void hashBalanceFactorBoundsAHotClientsLoadOnMh() {
    String hot = "10.0.0.1\n".repeat(100);
    CliRun bounded = run(hot, "-f", conf(), "--vs", "kernel-mh-bounded", "--stats");
    assertThat(bounded.code()).as(bounded.err()).isZero();
    // 100 connections over 4 servers: none may hold more than 125% of the mean (31.25).
    for (String server :
        List.of("127.0.0.1:9001", "127.0.0.1:9002", "127.0.0.1:9003", "127.0.0.1:9004")) {
      String row =
          bounded.lines().stream().filter(l -> l.startsWith(server)).findFirst().orElseThrow();
      long keys = Long.parseLong(row.trim().split("\\s+")[1]);
      assertThat(keys).as(row).isBetween(1L, 32L);
    }
    // Without a bound, source hashing sends one client's every connection to one server.
    CliRun plain = run(hot, "-f", conf(), "--vs", "kernel-sh");
    assertThat(Set(plain.lines())).hasSize(1);
  }

  @Test
  void dhReadsTheDestinationAddress() {
    CliRun dh =
        run(
            "10.1.0.1\n10.1.0.1\n10.1.0.2\n10.1.0.3\n10.1.0.4\n",
            "-f",
            conf(),
            "--vs",
            "kernel-dh");
    assertThat(dh.code()).as(dh.err()).isZero();
    assertThat(dh.lines()).hasSize(5);
    assertThat(dh.lines().get(0)).isEqualTo(dh.lines().get(1));
    // The same destination picks the same server whatever the client port, as dh ignores it.
    CliRun again = run("10.1.0.2:1234\n", "-f", conf(), "--vs", "kernel-dh");
    assertThat(again.lines()).containsExactly(dh.lines().get(2));
  }

  static Stream<Arguments> badConfigs() {
    return Stream.of(
        Arguments.of("dup-ident.conf", ":9:", "ident"),
        Arguments.of("bad-algo.conf", ":3:", "consistent"),
        Arguments.of("bad-replicas.conf", ":6:", "replicas"),
        Arguments.of("bad-by.conf", ":6:", "SIDEWAYS"),
        Arguments.of("neg-weight.conf", ":6:", "weight"),
        Arguments.of("dup-name.conf", ":8:", "twin"));
  }

  @ParameterizedTest
  @MethodSource("badConfigs")
  void badConfigIsOneLineNamingFileAndLine(String file, String line, String word) {
    CliRun r = run("x\n", "-f", fixture(file).toString(), "--vs", "web");
    assertOneLineError(r, file + line, word);
  }

  @Test
  void badOptionsAreOneLineNamingTheOption() {
    assertOneLineError(run("", "-f", conf(), "--vs", "nope"), "--vs", "nope", "web");
    assertOneLineError(run("", "-f", conf(), "--vs", "web", "--down", "b9"), "--down", "b9");
    assertOneLineError(
        run("", "-f", conf(), "--vs", "web", "--healthy", "SOMETIMES"), "--healthy", "SOMETIMES");
    assertOneLineError(
        run("", "-f", conf(), "--vs", "hashed", "--healthy", "ALL"), "--healthy", "shard");
    assertOneLineError(run("", "-f", conf(), "--vs", "web", "--alt", "-1"), "--alt");
    assertOneLineError(run("", "-f", conf(), "--vs", "hashed", "--alt", "2"), "--alt", "shard");
    assertOneLineError(
        run("", "-f", conf(), "--vs", "web", "--keys", tmp.resolve("missing").toString()),
        "--keys",
        "missing");
    assertOneLineError(run("", "-f", tmp.resolve("no.conf").toString(), "--vs", "web"), "no.conf");
    assertOneLineError(run("", "-f", conf()), "--vs");
    assertOneLineError(run("", "-f", conf(), "--vs", "web", "--seed", "abc"), "--seed");
  }
}

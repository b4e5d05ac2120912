package io.fairway.director.varnish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Shard vectors from varnish-cache's vmod/tests/directors_c000NN.vtc and s00000.vtc. */
class ShardDirectorTest {

  static final Backend S1 = Backend.named("s1");
  static final Backend S2 = Backend.named("s2");
  static final Backend S3 = Backend.named("s3");

  static ShardDirector shard(int replicas, Member... members) {
    ShardDirector d =
        new ShardDirector(
            "vd", new ShardDirector.Settings(replicas, 0, 0, ShardParams.DEFAULTS), null, null);
    d.replaceAll(List.of(members));
    return d;
  }

  record Point(int idx, long point, int host) {}

  static List<Point> parse(String table) {
    Matcher m = Pattern.compile("(\\d+) ([0-9a-f]{8}) h(\\d)").matcher(table);
    List<Point> l = new ArrayList<>();
    while (m.find()) {
      l.add(
          new Point(
              Integer.parseInt(m.group(1)),
              Long.parseLong(m.group(2), 16),
              Integer.parseInt(m.group(3))));
    }
    return l;
  }

  static void assertRing(ShardRing ring, String table) {
    List<Point> expected = parse(table);
    assertThat(ring.size()).isEqualTo(expected.size());
    for (Point p : expected) {
      assertThat(ring.point(p.idx())).as("point %d", p.idx()).isEqualTo(p.point());
      assertThat(ring.host(p.idx())).as("host of %d", p.idx()).isEqualTo(p.host());
    }
  }

  static Backend pick(ShardDirector d, long key, int alt, ShardHealthy h) {
    return d.pick(key, alt, ShardParams.DEFAULTS.withHealthy(h));
  }

  @Test
  void ringC00007() {
    ShardDirector d = shard(25, Member.of(S1), Member.of(S2), Member.of(S3));
    assertRing(d.state().ring(), UpstreamRings.C00007);
    assertThat(d.state().ring().lookup(0x68b902f7L)).isEqualTo(29);
    assertThat(pick(d, 0x68b902f7L, 0, ShardHealthy.CHOSEN)).isSameAs(S1);
    assertThat(d.state().ring().lookup(0x39dc4613L)).isEqualTo(20);
    assertThat(pick(d, 0x39dc4613L, 0, ShardHealthy.CHOSEN)).isSameAs(S2);
    assertThat(d.state().ring().lookup(0xc7793505L)).isEqualTo(59);
    assertThat(pick(d, 0xc7793505L, 0, ShardHealthy.CHOSEN)).isSameAs(S3);
  }

  @Test
  void weightedRingC00006() {
    ShardDirector d = shard(25, Member.of(S1), Member.of(S2, 2), Member.of(S3, 3));
    assertRing(d.state().ring(), UpstreamRings.C00006);
    assertThat(pick(d, 0x564ca84fL, 0, ShardHealthy.CHOSEN)).isSameAs(S1);
    assertThat(pick(d, 0x19cfe9f3L, 0, ShardHealthy.CHOSEN)).isSameAs(S2);
    assertThat(pick(d, 0x46a58f28L, 0, ShardHealthy.CHOSEN)).isSameAs(S3);
  }

  @Test
  void weightBelowOneCountsAsOne() {
    ShardDirector a = shard(25, Member.of(S1), Member.of(S2, 0.3));
    ShardDirector b = shard(25, Member.of(S1), Member.of(S2));
    assertThat(a.state().ring().size()).isEqualTo(50).isEqualTo(b.state().ring().size());
  }

  @Test
  void keysC00003NoWrapAtTheTop() {
    ShardDirector d = shard(25, Member.of(S1), Member.of(S2), Member.of(S3));
    assertThat(d.state().ring().lookup(1)).isEqualTo(0);
    assertThat(pick(d, 1, 0, ShardHealthy.CHOSEN)).isSameAs(S1);
    assertThat(d.state().ring().lookup(2147483647L)).isEqualTo(34);
    assertThat(pick(d, 2147483647L, 0, ShardHealthy.CHOSEN)).isSameAs(S2);
    assertThat(d.state().ring().lookup(4294967295L)).isEqualTo(74);
    assertThat(pick(d, 4294967295L, 0, ShardHealthy.CHOSEN)).isSameAs(S3);
  }

  @Test
  void byUrlC00005() {
    ShardDirector d = shard(25, Member.of(S1), Member.of(S2), Member.of(S3));
    ShardParams url = ShardParams.DEFAULTS.withBy(ShardBy.URL);
    assertThat(d.pick(Request.ofString("/Boo0aixe").withParams(url))).isSameAs(S1);
    assertThat(d.pick(Request.ofString("/eishoSu2").withParams(url))).isSameAs(S2);
    assertThat(d.pick(Request.ofString("/Aunah3uo").withParams(url))).isSameAs(S3);
    // HASH in client context equals URL
    assertThat(d.pick(Request.ofString("/Aunah3uo"))).isSameAs(S3);
  }

  @Test
  void blobKeyC00007() {
    ShardDirector d = shard(25, Member.of(S1), Member.of(S2), Member.of(S3));
    ShardParams blob = ShardParams.DEFAULTS.withBy(ShardBy.BLOB);
    Request r =
        Request.EMPTY.withBlob(new byte[] {0x68, (byte) 0xb9, 0x02, (byte) 0xf7}).withParams(blob);
    assertThat(d.pick(r)).isSameAs(S1);
  }

  @Test
  void altAndHealthyC00013() {
    ShardDirector d = shard(25, Member.of(S1), Member.of(S2), Member.of(S3));
    long key = 1756955383L;
    assertThat(pick(d, key, 0, ShardHealthy.ALL)).isSameAs(S1);
    assertThat(pick(d, key, 1, ShardHealthy.ALL)).isSameAs(S2);
    assertThat(pick(d, key, 2, ShardHealthy.ALL)).isSameAs(S3);
    assertThat(pick(d, key, 3, ShardHealthy.ALL)).isSameAs(S3); // clamped to n-1
    assertThat(pick(d, key, 0, ShardHealthy.CHOSEN)).isSameAs(S1);
    assertThat(pick(d, key, 1, ShardHealthy.CHOSEN)).isSameAs(S2);
    assertThat(pick(d, key, 2, ShardHealthy.CHOSEN)).isSameAs(S3);
    // alt via the request, as alt=req.restarts
    assertThat(
            d.pick(
                Request.ofKey(key)
                    .withAlt(1)
                    .withParams(ShardParams.DEFAULTS.withHealthy(ShardHealthy.ALL))))
        .isSameAs(S2);
  }

  @Test
  void sickSkippingAndWarmupC00014() {
    ShardDirector d = shard(25, Member.of(S1), Member.of(S2), Member.of(S3));
    long key = 1756955383L;
    d.setHealthy("s1", false);
    assertThat(pick(d, key, 0, ShardHealthy.CHOSEN)).isSameAs(S2);
    d.setHealthy("s2", false);
    assertThat(pick(d, key, 0, ShardHealthy.CHOSEN)).isSameAs(S3);
    // key on s3's point: order s3, s1, s2; warmup 1.0 wants the alternative but s1/s2 are sick
    assertThat(d.pick(192192123L, 0, ShardParams.DEFAULTS.withWarmup(1.0))).isSameAs(S3);
  }

  @Test
  void fallbackPathFollowsTheCodeNotTheDoc() {
    ShardDirector d = shard(25, Member.of(S1), Member.of(S2), Member.of(S3));
    long key = 0x68b902f7L; // order s1, s2, s3
    d.setHealthy("s2", false);
    d.setHealthy("s3", false);
    assertThat(pick(d, key, 1, ShardHealthy.CHOSEN)).isNull();
    assertThat(pick(d, key, 1, ShardHealthy.ALL)).isNull();
    d.setHealthy("s2", true);
    assertThat(pick(d, key, 2, ShardHealthy.CHOSEN)).isSameAs(S1);
    assertThat(pick(d, key, 2, ShardHealthy.ALL)).isSameAs(S1); // s2 was "last", never "previous"
    // IGNORE returns the alt-th host regardless of health
    assertThat(pick(d, key, 2, ShardHealthy.IGNORE)).isSameAs(S3);
  }

  @Test
  void twoPointRingAlwaysAnswersIndexOne() {
    ShardDirector d = shard(1, Member.of(S1), Member.of(S2));
    // points: 6e040182 (s2), f08ad325 (s1)
    assertThat(d.state().ring().lookup(0)).isEqualTo(1);
    assertThat(d.state().ring().lookup(0x6e040182L)).isEqualTo(1);
    assertThat(pick(d, 0, 0, ShardHealthy.CHOSEN)).isSameAs(S1);
  }

  @Test
  void identsAndHolesC00010() {
    Backend s3 = Backend.named("s3");
    List<Member> ms = new ArrayList<>();
    for (int i = 1; i <= 9; i++) {
      Backend b = i == 1 ? s3 : Backend.named("s3#" + i);
      ms.add(Member.of(b).withIdent(Integer.toString(i)));
    }
    ShardDirector d = shard(1, ms.toArray(new Member[0]));
    String expected =
        "0 03d1fe97 h3 1 0a25a43b h6 2 2b20d9a2 h1 3 6337e62c h8 4 c9803f17 h5 5 d51dafe6 h0"
            + " 6 eb74a7d5 h4 7 f493ce58 h2 8 fc1a5162 h7";
    assertRing(d.state().ring(), expected);
  }

  @Test
  void identPointsC00010() {
    Backend s2 = Backend.named("s2");
    ShardDirector d =
        shard(
            1,
            Member.of(S1),
            Member.of(Backend.named("s1b")).withIdent("s1_1"),
            Member.of(Backend.named("s1c")).withIdent("s1_2"),
            Member.of(s2));
    assertRing(d.state().ring(), "0 6e040182 h3 1 732c7bbe h2 2 bae80b0b h1 3 f08ad325 h0");
  }

  @Test
  void duplicateIdentsAreRefusedAndStateKept() {
    ShardDirector d = shard(1, Member.of(S1), Member.of(S2));
    assertThatThrownBy(() -> d.add(Member.of(S3).withIdent("s1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicate shard ident s1");
    assertThat(d.members()).hasSize(2);
  }

  @Test
  void replicasBelowOneRefused() {
    assertThatThrownBy(() -> new ShardDirector.Settings(0, 0, 0, null))
        .hasMessageContaining("replicas must be >= 1");
  }

  @Test
  void rampupS00000() {
    AtomicLong clock = new AtomicLong(1_000_000_000_000L);
    ShardDirector d =
        new ShardDirector(
            "vd",
            new ShardDirector.Settings(25, 0, 15, ShardParams.DEFAULTS),
            new Vrnd(1),
            clock::get);
    d.replaceAll(List.of(Member.of(S1), Member.of(S2), Member.of(S3)));
    long key = 1756955383L; // order s1, s2, s3
    clock.addAndGet(8_000_000_000L);
    d.setHealthy("s1", false);
    // chosen s2 and alternative s3 are both in rampup since creation: s2, no dice
    assertThat(d.pick(key, 0, ShardParams.DEFAULTS)).isSameAs(S2);
    clock.addAndGet(8_000_000_000L);
    d.setHealthy("s1", true);
    // s1 has just come back (e = 0), s2 has been up 16s: dice*15 < 0 is false -> s2
    assertThat(d.pick(key, 0, ShardParams.DEFAULTS)).isSameAs(S2);
    clock.addAndGet(16_000_000_000L);
    assertThat(d.pick(key, 0, ShardParams.DEFAULTS)).isSameAs(S1);
  }

  @Test
  void rampupSharesGrowLinearly() {
    AtomicLong clock = new AtomicLong(0);
    ShardDirector d =
        new ShardDirector(
            "vd",
            new ShardDirector.Settings(25, 0, 10, ShardParams.DEFAULTS),
            new Vrnd(3),
            clock::get);
    d.replaceAll(List.of(Member.of(S1), Member.of(S2), Member.of(S3)));
    clock.addAndGet(100_000_000_000L);
    d.setHealthy("s1", false);
    clock.addAndGet(100_000_000_000L);
    d.setHealthy("s1", true);
    clock.addAndGet(2_500_000_000L); // a quarter into s1's rampup
    int s1 = 0;
    for (int i = 0; i < 20000; i++) {
      if (d.pick(1756955383L, 0, ShardParams.DEFAULTS) == S1) {
        s1++;
      }
    }
    assertThat(s1 / 20000.0).isBetween(0.23, 0.27);
  }

  @Test
  void warmupSendsItsShareToTheNextHost() {
    ShardDirector d =
        new ShardDirector(
            "vd", new ShardDirector.Settings(25, 0.3, 0, ShardParams.DEFAULTS), new Vrnd(9), null);
    d.replaceAll(List.of(Member.of(S1), Member.of(S2), Member.of(S3)));
    long key = 1756955383L; // order s1, s2, s3
    int s2 = 0;
    for (int i = 0; i < 20000; i++) {
      Backend b = d.pick(key, 0, ShardParams.DEFAULTS);
      assertThat(b).isIn(S1, S2);
      if (b == S2) {
        s2++;
      }
    }
    assertThat(s2 / 20000.0).isBetween(0.28, 0.32);
    // per-request warmup 0 turns it off; alt > 0 never warms
    assertThat(d.pick(key, 0, ShardParams.DEFAULTS.withWarmup(0))).isSameAs(S1);
    assertThat(d.pick(key, 1, ShardParams.DEFAULTS)).isSameAs(S2);
  }

  @Test
  void healthIgnoreSkipsRampupAndPrecomputedKeyWins() {
    ShardDirector d = shard(25, Member.of(S1), Member.of(S2), Member.of(S3));
    d.setHealthy("s1", false);
    assertThat(pick(d, 1756955383L, 0, ShardHealthy.IGNORE)).isSameAs(S1);
    assertThat(d.pick(Request.ofKey(1756955383L).withKeyString("/ignored"))).isSameAs(S2);
  }

  @Test
  void healthOnlyChangesReuseTheRing() {
    ShardDirector d = shard(67, Member.of(S1), Member.of(S2), Member.of(S3));
    ShardRing before = d.state().ring();
    d.setHealthy("s2", false);
    assertThat(d.state().ring()).isSameAs(before);
    d.setWeight("s2", 2);
    assertThat(d.state().ring()).isNotSameAs(before);
  }

  @Test
  void removingOneMemberMovesOnlyItsKeys() {
    List<Member> ms = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ms.add(Member.of(Backend.named("b" + i)));
    }
    ShardDirector d = shard(67, ms.toArray(new Member[0]));
    Backend[] before = new Backend[5000];
    for (int k = 0; k < before.length; k++) {
      before[k] = d.pick(Request.ofString("k" + k));
    }
    d.remove("b3");
    int moved = 0;
    for (int k = 0; k < before.length; k++) {
      Backend now = d.pick(Request.ofString("k" + k));
      if (now != before[k]) {
        moved++;
        assertThat(before[k].name()).isEqualTo("b3");
      }
    }
    assertThat(moved).isBetween(250, 800);
  }

  @Test
  void noMembersPicksNull() {
    assertThat(new ShardDirector("x").pick(Request.ofKey(5))).isNull();
  }
}

package io.fairway.director.varnish;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/** The fast lookup must answer exactly what Varnish's literal shard_lookup answers. */
class ShardRingLookupTest {

  @Provide
  Arbitrary<Long> point() {
    // a small value range as well as the full one, so duplicates and exact hits are common
    return Arbitraries.oneOf(
        Arbitraries.longs().between(0, 0xFFFF_FFFFL),
        Arbitraries.longs().between(0, 40),
        Arbitraries.longs().between(0xFFFF_FFF0L, 0xFFFF_FFFFL),
        Arbitraries.longs().between(0x7FFF_FFF0L, 0x8000_0010L));
  }

  @Property(tries = 500)
  void fastLookupEqualsLiteralPort(
      @ForAll @Size(min = 1, max = 200) List<@From("point") Long> points,
      @ForAll("point") long key,
      @ForAll @IntRange(min = 0, max = 199) int pickPoint) {
    long[] raw = points.stream().mapToLong(Long::longValue).toArray();
    ShardRing ring = ShardRing.ofPoints(raw);
    assertThat(ring.lookup(key)).isEqualTo(ring.literalLookup(key));
    // keys that hit a point exactly
    long hit = raw[pickPoint % raw.length];
    assertThat(ring.lookup(hit)).isEqualTo(ring.literalLookup(hit));
    assertThat(ring.lookup(hit + 1 > 0xFFFF_FFFFL ? 0 : hit + 1))
        .isEqualTo(ring.literalLookup(hit + 1 > 0xFFFF_FFFFL ? 0 : hit + 1));
  }

  @Property(tries = 50)
  void realRingsAgreeEverywhere(
      @ForAll @IntRange(min = 1, max = 30) int hosts,
      @ForAll @IntRange(min = 1, max = 40) int replicas,
      @ForAll @LongRange(min = 0, max = 0xFFFF_FFFFL) long key) {
    String[] idents = new String[hosts];
    int[] reps = new int[hosts];
    for (int h = 0; h < hosts; h++) {
      idents[h] = "h" + h;
      reps[h] = replicas;
    }
    ShardRing ring = ShardRing.build(idents, reps, null);
    assertThat(ring.lookup(key)).isEqualTo(ring.literalLookup(key));
    for (int i = 0; i < ring.size(); i += 7) {
      assertThat(ring.lookup(ring.point(i))).isEqualTo(ring.literalLookup(ring.point(i)));
    }
  }
}

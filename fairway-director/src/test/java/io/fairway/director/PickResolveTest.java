package io.fairway.director;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.director.varnish.HashDirector;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * AbstractDirector.pick caches "this backend class is not a director"; it must resolve exactly like
 * Director's default pick, whatever mix of backend classes and nested directors it meets.
 */
class PickResolveTest {

  /** Another backend class, so the one-entry class cache is replaced back and forth. */
  record Other(String name) implements Backend {}

  /** A director that is not an AbstractDirector: always chooses its one backend. */
  record Fixed(String name, Backend only) implements Director {
    @Override
    public Backend choose(Request request) {
      return only;
    }

    @Override
    public boolean healthy() {
      return true;
    }

    @Override
    public String algorithm() {
      return "fixed";
    }

    @Override
    public List<Member> members() {
      return List.of(Member.of(only));
    }
  }

  /** Director.pick's default, spelled out. */
  static Backend reference(Director d, Request r) {
    Backend b = d.choose(r);
    for (int depth = 0; b instanceof Director n && depth < 64; depth++) {
      b = n.choose(r);
    }
    return b instanceof Director ? null : b;
  }

  @Test
  void sameAsDefaultPickThroughMixedClassesAndLayers() {
    HashDirector inner = new HashDirector("inner");
    inner.replaceAll(List.of(Member.of(Backend.named("i1")), Member.of(new Other("i2"), 2)));
    HashDirector outer = new HashDirector("outer");
    outer.replaceAll(
        List.of(
            Member.of(Backend.named("a")),
            Member.of(new Other("b")),
            Member.of(inner, 3),
            Member.of(new Fixed("f", new Other("fo")))));
    SplittableRandom rnd = new SplittableRandom(7);
    int nested = 0;
    for (int i = 0; i < 20_000; i++) {
      Request r = Request.ofKey(rnd.nextLong() & 0xFFFF_FFFFL);
      Backend want = reference(outer, r);
      assertThat(outer.pick(r)).isSameAs(want);
      if (outer.choose(r) instanceof Director) {
        nested++;
      }
    }
    assertThat(nested).isGreaterThan(1000); // the slow path was exercised too
  }

  @Test
  void emptyAndAllDownPickNull() {
    HashDirector d = new HashDirector("d");
    assertThat(d.pick(Request.ofKey(1))).isNull();
    d.replaceAll(List.of(Member.of(Backend.named("a")).withHealth(false, 0)));
    assertThat(d.pick(Request.ofKey(1))).isNull();
  }
}

package io.fairway.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.varnish.ShardBy;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.director.varnish.ShardHealthy;
import io.fairway.director.varnish.VarnishHash;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Layered directors and shard_param in the plan, and the tree that resolves them. */
class LayeredPlanTest {

  static Plan plan(String text) throws PlanException {
    return PlanBuilder.build(
        KeepalivedConfig.parse("t.conf", text, Path.of("."), ParseOptions.defaults()).config());
  }

  static String servers(int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 1; i <= n; i++) {
      b.append("  real_server 127.0.0.1 ")
          .append(9000 + i)
          .append(" {\n    name b")
          .append(i)
          .append("\n  }\n");
    }
    return b.toString();
  }

  // The outer director is written first: the plan still lists leaves first.
  static final String LAYERED =
      "virtual_server 127.0.0.1 8080 {\n  name web\n"
          + "  lb_algo fallback\n  lb_kind HTTP\n  alt_header X-Alt\n  members outer\n"
          + "  director outer {\n    lb_algo fallback\n    members primary spare\n  }\n"
          + "  director primary {\n    lb_algo shard\n    shard {\n      by URL\n      replicas 25\n"
          + "    }\n    members b1 b2 b3\n  }\n"
          + "  director spare {\n    lb_algo shard\n    shard {\n      associate p\n    }\n"
          + "    members b4 b5 b6\n  }\n"
          + servers(6)
          + "}\n"
          + "shard_param p {\n  by URL\n  alt 1\n}\n";

  @Test
  void layersAreTypedLeavesFirst() throws Exception {
    ServicePlan web = plan(LAYERED).service("web").orElseThrow();
    Selection.Layered l = (Selection.Layered) web.selection();
    assertThat(l.algorithm()).isEqualTo("fallback");
    assertThat(l.top()).isEqualTo(new Selection.Fallback(false));
    assertThat(l.members()).containsExactly(new Selection.Layered.Nested("outer"));
    assertThat(l.groups())
        .extracting(Selection.Layered.Group::name)
        .containsExactly("primary", "spare", "outer");
    Selection.Shard primary = (Selection.Shard) l.groups().get(0).selection();
    assertThat(primary.replicas()).isEqualTo(25);
    assertThat(primary.by()).isEqualTo(ShardBy.URL);
    assertThat(primary.alt()).isZero();
    Selection.Shard spare = (Selection.Shard) l.groups().get(1).selection();
    assertThat(spare.alt()).as("from shard_param p").isEqualTo(1);
    assertThat(spare.param()).contains("p");
    assertThat(l.groups().get(2).members())
        .containsExactly(
            new Selection.Layered.Nested("primary"), new Selection.Layered.Nested("spare"));
    assertThat(l.groups().get(0).members())
        .containsExactly(
            new Selection.Layered.Server("b1"),
            new Selection.Layered.Server("b2"),
            new Selection.Layered.Server("b3"));
    assertThat(l.altHeader()).contains("X-Alt");
    assertThat(web.key().toString()).isEqualTo("URL");
    assertThat(PlanFormat.comment(plan(LAYERED)))
        .contains(
            "selection fallback sticky false over [outer]; director primary: shard replicas 25");
  }

  /** A tree with every member up but {@code down}. */
  static DirectorTree tree(ServicePlan web, Set<String> down) {
    DirectorTree t = new DirectorTree(web.name(), (Selection.Varnish) web.selection(), null);
    Map<String, MemberPlan> byName = new HashMap<>();
    web.members().forEach(m -> byName.put(m.name(), m));
    Map<String, Backend> backends = new HashMap<>();
    t.update(
        (d, name) ->
            DirectorFactory.member(
                byName.get(name),
                backends.computeIfAbsent(name, Backend::named),
                !down.contains(name)));
    return t;
  }

  /** The same ring as a plain shard director, the way a varnishd VCL would declare it. */
  static ShardDirector shard(List<String> names, int replicas, int alt) {
    ShardDirector d =
        new ShardDirector(
            "s",
            new ShardDirector.Settings(
                replicas,
                0,
                0,
                new io.fairway.director.varnish.ShardParams(
                    ShardBy.URL, ShardHealthy.CHOSEN, true, -1, alt)),
            null,
            null);
    for (String n : names) {
      d.add(Member.of(Backend.named(n)));
    }
    return d;
  }

  @Test
  void aFallbackResolvesIntoTheFirstShardThatIsUpAndItsRing() throws Exception {
    ServicePlan web = plan(LAYERED).service("web").orElseThrow();
    ShardDirector primary = shard(List.of("b1", "b2", "b3"), 25, 0);
    ShardDirector spare = shard(List.of("b4", "b5", "b6"), 67, 1);
    DirectorTree up = tree(web, Set.of());
    DirectorTree primaryDown = tree(web, Set.of("b1", "b2", "b3"));
    Set<String> seenUp = new java.util.HashSet<>();
    Set<String> seenDown = new java.util.HashSet<>();
    for (int i = 0; i < 500; i++) {
      String url = "/obj/" + i;
      Request r = Request.ofKey(VarnishHash.hash32(url));
      String want = primary.pick(r).name();
      assertThat(up.pick(r).name()).isEqualTo(want);
      assertThat(up.route(r)).extracting(Backend::name).containsExactly("outer", "primary", want);
      String wantSpare = spare.pick(r).name();
      assertThat(primaryDown.pick(r).name()).isEqualTo(wantSpare);
      assertThat(primaryDown.route(r))
          .extracting(Backend::name)
          .containsExactly("outer", "spare", wantSpare);
      // A request's alt, even 0, overrides the associated set's alt 1.
      assertThat(primaryDown.pick(r.withAlt(0)).name()).isEqualTo(spare.pick(r.withAlt(0)).name());
      seenUp.add(want);
      seenDown.add(wantSpare);
    }
    assertThat(seenUp).containsExactlyInAnyOrder("b1", "b2", "b3");
    assertThat(seenDown).containsExactlyInAnyOrder("b4", "b5", "b6");
    // Without the request's alt 0 the set's alt 1 applies: a different server for some keys.
    long differ = 0;
    for (int i = 0; i < 100; i++) {
      Request r = Request.ofKey(VarnishHash.hash32("/obj/" + i));
      if (!primaryDown.pick(r).name().equals(primaryDown.pick(r.withAlt(0)).name())) {
        differ++;
      }
    }
    assertThat(differ).isEqualTo(100);
  }

  @Test
  void everythingDownResolvesToNothing() throws Exception {
    ServicePlan web = plan(LAYERED).service("web").orElseThrow();
    DirectorTree t = tree(web, Set.of("b1", "b2", "b3", "b4", "b5", "b6"));
    Request r = Request.ofKey(VarnishHash.hash32("/x"));
    assertThat(t.pick(r)).isNull();
    List<Backend> route = t.route(r);
    assertThat(route.get(route.size() - 1)).isNull();
  }

  @Test
  void aServicesOwnShardKeepsItsAltHeader() throws Exception {
    ServicePlan s =
        plan("shard_param p {\n  healthy ALL\n  rampup off\n}\n"
                + "virtual_server 127.0.0.1 8080 {\n  name s\n  lb_algo shard\n  lb_kind HTTP\n"
                + "  alt_header X-Alt\n  shard {\n    associate p\n    by URL\n  }\n"
                + servers(3)
                + "}\n")
            .service("s")
            .orElseThrow();
    assertThat(s.selection())
        .isEqualTo(
            new Selection.Shard(
                67,
                ShardBy.URL,
                ShardHealthy.ALL,
                0,
                java.time.Duration.ZERO,
                0,
                0,
                false,
                Optional.of("p"),
                Optional.of("X-Alt")));
    assertThat(s.selection().altHeader()).contains("X-Alt");
  }
}

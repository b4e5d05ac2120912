package io.fairway.proxy.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.varnish.ShardBy;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.director.varnish.ShardHealthy;
import io.fairway.director.varnish.ShardParams;
import io.fairway.director.varnish.VarnishHash;
import io.fairway.plan.MemberPlan;
import io.fairway.plan.PlanBuilder;
import io.fairway.plan.Selection;
import io.fairway.plan.ServicePlan;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The proxy's picker over layered directors: the table's servers go into every layer the plan
 * names, a server out of the table is a sick member of its layer, and a reload that reorders the
 * layers reaches the picks.
 */
class LayeredPickerTest {
  static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 40000);
  static final InetSocketAddress VIP = new InetSocketAddress("127.0.0.1", 8080);

  static String conf(String order) {
    StringBuilder b =
        new StringBuilder(
            "shard_param p {\n  by URL\n  alt 1\n}\n"
                + "virtual_server 127.0.0.1 8080 {\n  name web\n  lb_algo fallback\n  lb_kind HTTP\n"
                + "  alt_header X-Alt\n  members "
                + order
                + "\n"
                + "  director primary {\n    lb_algo shard\n    shard {\n      by URL\n    }\n"
                + "    members b1 b2 b3\n  }\n"
                + "  director spare {\n    lb_algo shard\n    shard {\n      associate p\n    }\n"
                + "    members b4 b5 b6\n  }\n");
    for (int i = 1; i <= 6; i++) {
      b.append("  real_server 127.0.0.1 ")
          .append(9000 + i)
          .append(" {\n    name b")
          .append(i)
          .append("\n  }\n");
    }
    return b.append("}\n").toString();
  }

  static ListenerSpec spec(String order) throws Exception {
    ServicePlan sp =
        PlanBuilder.build(
                KeepalivedConfig.parse("t.conf", conf(order), Path.of("."), ParseOptions.defaults())
                    .config())
            .service("web")
            .orElseThrow();
    return ListenerSpec.of(sp, sp.services().get(0).key());
  }

  static List<ProxyBackend> table(ListenerSpec spec, Set<String> absent) {
    List<ProxyBackend> out = new ArrayList<>();
    for (MemberPlan m : spec.members().values()) {
      if (!absent.contains(m.name())) {
        out.add(new ProxyBackend(m.dest(), 0));
      }
    }
    return out;
  }

  static ShardDirector ring(int alt, String... names) {
    ShardDirector d =
        new ShardDirector(
            "s",
            new ShardDirector.Settings(
                67, 0, 0, new ShardParams(ShardBy.URL, ShardHealthy.CHOSEN, true, -1, alt)),
            null,
            null);
    for (String n : names) {
      d.add(Member.of(Backend.named(n)));
    }
    return d;
  }

  static String name(ProxyBackend rs, ListenerSpec spec) {
    return spec.members().get(rs.key).name();
  }

  @Test
  void layersFollowTheTableAndAReload() throws Exception {
    ListenerSpec s = spec("primary spare");
    VarnishPicker p = new VarnishPicker((Selection.Varnish) s.selection(), null);
    p.update(table(s, Set.of()), s.members());
    ShardDirector primary = ring(0, "b1", "b2", "b3");
    ShardDirector spare = ring(1, "b4", "b5", "b6");
    for (int i = 0; i < 200; i++) {
      String url = "/obj/" + i;
      Request r = Request.ofKey(VarnishHash.hash32(url));
      assertThat(name(p.pick(CLIENT, VIP, url, -1), s)).isEqualTo(primary.pick(r).name());
    }
    // The checkers took primary's servers out of the table: the fallback moves to spare, whose
    // associated set asks for alt 1 unless the request asks for another.
    p.update(table(s, Set.of("b1", "b2", "b3")), s.members());
    for (int i = 0; i < 200; i++) {
      String url = "/obj/" + i;
      Request r = Request.ofKey(VarnishHash.hash32(url));
      assertThat(name(p.pick(CLIENT, VIP, url, -1), s)).isEqualTo(spare.pick(r).name());
      assertThat(name(p.pick(CLIENT, VIP, url, 0), s)).isEqualTo(spare.pick(r.withAlt(0)).name());
    }
    // A reload that puts spare first, with everything back in the table.
    ListenerSpec s2 = spec("spare primary");
    VarnishPicker p2 = new VarnishPicker((Selection.Varnish) s2.selection(), p);
    p2.update(table(s2, Set.of()), s2.members());
    for (int i = 0; i < 200; i++) {
      String url = "/obj/" + i;
      Request r = Request.ofKey(VarnishHash.hash32(url));
      assertThat(name(p2.pick(CLIENT, VIP, url, -1), s2)).isEqualTo(spare.pick(r).name());
    }
  }
}

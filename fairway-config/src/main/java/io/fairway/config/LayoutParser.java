package io.fairway.config;

import io.fairway.config.model.DirectorGroup;
import io.fairway.config.model.DirectorLayout;
import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.LbKind;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.Scheduler;
import io.fairway.config.model.ShardParam;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A virtual_server's layered directors (Fairway extensions): {@code director NAME { lb_algo ...;
 * members ... }} blocks, the virtual_server's own {@code members} line and {@code alt_header}. It
 * refuses what Varnish would fail on or silently get wrong: a member that names nothing, a cycle, a
 * kernel scheduler in a layer, two key sources in one virtual_server (the data plane derives one
 * key per request). Each director block's keywords are read by {@link DirectorBlock}; this class
 * checks what spans the virtual_server (names, members, cycles, what is reached).
 */
final class LayoutParser {
  private final Values v;
  private final Map<String, ShardParam> params;

  LayoutParser(Values v, Map<String, ShardParam> params) {
    this.v = v;
    this.params = params;
  }

  /**
   * The layout, or {@link DirectorLayout#NONE} when the virtual_server uses none of it.
   *
   * @param vs the virtual_server node (for messages)
   * @param top its lb_algo and director parameters
   */
  DirectorLayout layout(
      Node vs,
      Scheduler scheduler,
      DirectorSpec top,
      LbKind method,
      List<Node> groupNodes,
      @Nullable Node membersNode,
      @Nullable Node altHeaderNode,
      List<RealServer> reals) {
    if (groupNodes.isEmpty() && membersNode == null && altHeaderNode == null) {
      return DirectorLayout.NONE;
    }
    Set<String> servers = new LinkedHashSet<>();
    for (RealServer rs : reals) {
      servers.add(rs.name());
    }
    Directors d = directors(groupNodes, method, servers);
    List<String> members = topMembers(membersNode, scheduler, servers, d);
    for (DirectorGroup g : d.groups().values()) {
      for (String m : g.members()) {
        if (!servers.contains(m) && !d.groups().containsKey(m)) {
          unknownMember(groupNode(d.nodes(), g.name()), m, servers, d.groups().keySet());
        }
      }
    }
    cycles(d.groups(), d.nodes());
    if (membersNode != null) {
      unreached(members, membersNode, servers, d);
    }
    sameKey(top, d.groups(), d.nodes());
    Optional<String> altHeader = altHeader(altHeaderNode, method, top, d.groups().values());
    return new DirectorLayout(members, List.copyOf(d.groups().values()), altHeader);
  }

  /** The director blocks read, by name, and the node each was read from (for messages). */
  private record Directors(Map<String, DirectorGroup> groups, Map<String, Node> nodes) {}

  private Directors directors(List<Node> groupNodes, LbKind method, Set<String> servers) {
    Map<String, DirectorGroup> groups = new LinkedHashMap<>();
    Map<String, Node> nodes = new LinkedHashMap<>();
    for (Node g : groupNodes) {
      DirectorGroup d = group(g, method, servers, groups);
      if (d != null) {
        groups.put(d.name(), d);
        nodes.put(d.name(), g);
      }
    }
    return new Directors(groups, nodes);
  }

  /** The virtual_server's own members line, which only a Varnish lb_algo has. */
  private List<String> topMembers(
      @Nullable Node membersNode, Scheduler scheduler, Set<String> servers, Directors d) {
    boolean varnish = scheduler != null && !scheduler.isKernel();
    if (membersNode != null) {
      if (!varnish) {
        v.error(
            membersNode,
            "'members' needs lb_algo to be a Varnish director (round_robin,"
                + " fallback, random, hash or shard), not "
                + (scheduler == null ? "unset" : scheduler.keyword()));
      }
      return members(membersNode, servers, d.groups().keySet(), null);
    }
    if (!d.groups().isEmpty()) {
      v.error(
          d.nodes().values().iterator().next(),
          "director blocks need a 'members' line in the "
              + "virtual_server naming what its lb_algo "
              + (scheduler == null ? "" : scheduler.keyword() + " ")
              + "director chooses among (directors and real servers)");
    }
    return List.of();
  }

  /** Warns about the directors and real servers no member line leads to: they never choose. */
  private void unreached(List<String> members, Node membersNode, Set<String> servers, Directors d) {
    Set<String> reached = new HashSet<>();
    for (String m : members) {
      reach(m, d.groups(), reached);
    }
    for (DirectorGroup g : d.groups().values()) {
      if (!reached.contains(g.name())) {
        v.warn(
            groupNode(d.nodes(), g.name()),
            "director "
                + g.name()
                + " is a member of no director of "
                + "this virtual_server: it never chooses");
      }
    }
    for (String s : servers) {
      if (!reached.contains(s)) {
        v.warn(
            membersNode,
            "real_server "
                + s
                + " is in no director of this virtual_server: "
                + "it is checked and in the table, but never chosen");
      }
    }
  }

  private @Nullable DirectorGroup group(
      Node g, LbKind method, Set<String> servers, Map<String, DirectorGroup> groups) {
    if (!v.block(g)) {
      return null;
    }
    if (g.argc() != 1) {
      v.error(g, "expected 'director NAME { lb_algo ...  members ... }'");
      return null;
    }
    String name = g.arg(1);
    if (groups.containsKey(name)) {
      v.error(
          g, "duplicate director '" + name + "' (first at " + groups.get(name).location() + ")");
      return null;
    }
    if (servers.contains(name)) {
      v.error(
          g,
          "director '"
              + name
              + "' has the name of a real_server of this virtual_server;"
              + " members name either, so names must differ");
      return null;
    }
    DirectorBlock b = DirectorBlock.read(v, g);
    if (b == null) {
      return null;
    }
    Scheduler scheduler =
        Objects.requireNonNull(b.scheduler, "read() refuses a director without one");
    Node membersNode =
        Objects.requireNonNull(b.membersNode, "read() refuses a director without one");
    DirectorSpec spec = new DirectorParser(v, params).director(scheduler, b.blocks, method);
    List<String> members = members(membersNode, null, null, name);
    return new DirectorGroup(Values.loc(g), name, scheduler, spec, members);
  }

  /**
   * A members line: names, no repeats. With {@code servers} and {@code groups} the names are
   * checked now (the virtual_server's own line); a director's line is checked once every director
   * is known, since it may name one written after it.
   */
  private static Node groupNode(Map<String, Node> nodes, String name) {
    return Objects.requireNonNull(nodes.get(name), "every director group is read from a node");
  }

  private List<String> members(
      Node c, @Nullable Set<String> servers, @Nullable Set<String> groups, @Nullable String owner) {
    if (c.hasBlock()) {
      v.error(c, "'members' does not take a { } block");
      return List.of();
    }
    if (c.argc() == 0) {
      v.error(c, "'members' needs at least one name");
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (int i = 1; i <= c.argc(); i++) {
      String m = c.arg(i);
      if (out.contains(m)) {
        v.error(c, "members: '" + m + "' is named twice");
        continue;
      }
      if (m.equals(owner)) {
        v.error(c, "members: director " + owner + " cannot be a member of itself");
        continue;
      }
      if (servers != null
          && !servers.contains(m)
          && !Objects.requireNonNull(groups, "groups come with servers").contains(m)) {
        unknownMember(c, m, servers, groups);
        continue;
      }
      out.add(m);
    }
    return out;
  }

  private void unknownMember(Node c, String m, Set<String> servers, Set<String> groups) {
    Set<String> all = new LinkedHashSet<>(servers);
    all.addAll(groups);
    Optional<String> s = Keywords.suggest(m, all);
    v.error(
        c,
        "members: '"
            + m
            + "' is neither a real_server nor a director of this "
            + "virtual_server"
            + s.map(x -> " (did you mean '" + x + "'?)").orElse(""));
  }

  private void cycles(Map<String, DirectorGroup> groups, Map<String, Node> nodes) {
    Set<String> reported = new HashSet<>();
    for (String start : groups.keySet()) {
      List<String> path = new ArrayList<>();
      List<String> cycle = findCycle(start, groups, path, new HashSet<>());
      if (cycle != null && reported.add(String.join(",", new java.util.TreeSet<>(cycle)))) {
        v.error(
            groupNode(nodes, start),
            "director "
                + start
                + ": its members lead back to it ("
                + String.join(" -> ", cycle)
                + "); a director cannot contain itself");
      }
    }
  }

  /** A path from {@code at} that returns to its first element, or null. */
  private static @Nullable List<String> findCycle(
      String at, Map<String, DirectorGroup> groups, List<String> path, Set<String> done) {
    if (!path.isEmpty() && path.get(0).equals(at)) {
      List<String> c = new ArrayList<>(path);
      c.add(at);
      return c;
    }
    if (path.contains(at) || done.contains(at) || !groups.containsKey(at)) {
      return null;
    }
    path.add(at);
    for (String m : groups.get(at).members()) {
      List<String> c = findCycle(m, groups, path, done);
      if (c != null) {
        return c;
      }
    }
    path.remove(path.size() - 1);
    done.add(at);
    return null;
  }

  private static void reach(String m, Map<String, DirectorGroup> groups, Set<String> reached) {
    if (!reached.add(m)) {
      return;
    }
    DirectorGroup g = groups.get(m);
    if (g != null) {
      for (String x : g.members()) {
        reach(x, groups, reached);
      }
    }
  }

  /** The key a hashing director takes, as the data plane derives it. */
  static @Nullable String dataPlaneKey(DirectorSpec d) {
    KeySource k =
        d instanceof DirectorSpec.Shard s
            ? s.by()
            : d instanceof DirectorSpec.Hash h ? h.by() : null;
    if (k == null) {
      return null;
    }
    return switch (k.kind()) {
      // HASH hashes the URL in client context, so HASH and URL are one key here.
      case HASH, URL -> "by URL";
      case HEADER, COOKIE -> "by " + k;
      default -> "the client address";
    };
  }

  private void sameKey(
      DirectorSpec top, Map<String, DirectorGroup> groups, Map<String, Node> nodes) {
    String key = dataPlaneKey(top);
    String from = "the virtual_server's director";
    for (DirectorGroup g : groups.values()) {
      String k = dataPlaneKey(g.director());
      if (k == null) {
        continue;
      }
      if (key == null) {
        key = k;
        from = "director " + g.name();
      } else if (!key.equals(k)) {
        v.error(
            groupNode(nodes, g.name()),
            "director "
                + g.name()
                + " hashes "
                + k
                + " but "
                + from
                + " hashes "
                + key
                + "; one virtual_server derives one key per request, so its "
                + "hashing directors must use the same 'by'");
      }
    }
  }

  private Optional<String> altHeader(
      @Nullable Node c,
      LbKind method,
      DirectorSpec top,
      java.util.Collection<DirectorGroup> groups) {
    if (c == null || !v.args(c, 1, 1)) {
      return Optional.empty();
    }
    if (method != LbKind.HTTP) {
      v.error(c, "alt_header reads a request header and needs lb_kind HTTP (it is " + method + ")");
      return Optional.empty();
    }
    boolean shard =
        top instanceof DirectorSpec.Shard
            || groups.stream().anyMatch(g -> g.director() instanceof DirectorSpec.Shard);
    if (!shard) {
      v.error(c, "alt_header applies to shard directors and this virtual_server has none");
      return Optional.empty();
    }
    return Optional.of(c.arg(1));
  }
}

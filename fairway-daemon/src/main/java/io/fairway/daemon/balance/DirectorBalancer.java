package io.fairway.daemon.balance;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Request;
import io.fairway.director.varnish.VarnishHash;
import io.fairway.plan.DirectorTree;
import java.util.ArrayList;
import java.util.List;

/**
 * A virtual server balanced by one of the Varnish directors, or by several layered ({@code
 * director NAME { }} blocks): a pick resolves down the layers as the data plane's does.
 */
public final class DirectorBalancer implements Balancer {

  private final String name;
  private final DirectorTree tree;
  private final List<String> servers;
  private final boolean hashesKey;
  private final int alt;

  DirectorBalancer(String name, DirectorTree tree, List<String> servers, boolean hashesKey,
      int alt) {
    this.name = name;
    this.tree = tree;
    this.servers = List.copyOf(servers);
    this.hashesKey = hashesKey;
    this.alt = alt;
  }

  /** The top director, for a data plane that picks with its own {@link Request}s. */
  public AbstractDirector<?> director() {
    return tree.top();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String algorithm() {
    return tree.top().algorithm();
  }

  @Override
  public List<String> servers() {
    return servers;
  }

  /** Marks the server up or down in every director that has it as a member. */
  @Override
  public boolean setUp(String server, boolean up) {
    boolean found = false;
    List<AbstractDirector<?>> all = new ArrayList<>(tree.groups().values());
    all.add(tree.top());
    for (AbstractDirector<?> d : all) {
      boolean member = d.members().stream()
          .anyMatch(m -> m.name().equals(server) && !(m.backend() instanceof AbstractDirector));
      if (member) {
        found |= d.setHealthy(server, up);
      }
    }
    return found || (servers.contains(server) && tree.layered());
  }

  private Request request(String key) {
    Request r = hashesKey ? Request.ofKey(VarnishHash.hash32(key)) : Request.EMPTY;
    return alt >= 0 ? r.withAlt(alt) : r;
  }

  @Override
  public String pick(String key) {
    Backend b = tree.pick(request(key));
    return b == null ? null : b.name();
  }

  /**
   * For a layered service, the directors the key passes through and the server it ends on,
   * {@code primary/b3} ({@code primary/-} when that director finds none); else as {@link #pick}.
   */
  @Override
  public String route(String key) {
    if (!tree.layered()) {
      return pick(key);
    }
    List<Backend> path = tree.route(request(key));
    StringBuilder b = new StringBuilder();
    for (Backend x : path) {
      if (b.length() > 0) {
        b.append('/');
      }
      b.append(x == null ? "-" : x.name());
    }
    return path.get(path.size() - 1) == null && path.size() == 1 ? null : b.toString();
  }
}

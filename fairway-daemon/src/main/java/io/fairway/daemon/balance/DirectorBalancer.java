package io.fairway.daemon.balance;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.varnish.VarnishHash;
import java.util.List;

/** A virtual server balanced by one of the Varnish directors. */
public final class DirectorBalancer implements Balancer {

  private final String name;
  private final AbstractDirector<?> director;
  private final boolean hashesKey;
  private final int alt;

  DirectorBalancer(String name, AbstractDirector<?> director, boolean hashesKey, int alt) {
    this.name = name;
    this.director = director;
    this.hashesKey = hashesKey;
    this.alt = alt;
  }

  /** The director, for a data plane that picks with its own {@link Request}s. */
  public AbstractDirector<?> director() {
    return director;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String algorithm() {
    return director.algorithm();
  }

  @Override
  public List<String> servers() {
    return director.members().stream().map(Member::name).toList();
  }

  @Override
  public boolean setUp(String server, boolean up) {
    return director.setHealthy(server, up);
  }

  @Override
  public String pick(String key) {
    Request r = hashesKey ? Request.ofKey(VarnishHash.hash32(key)) : Request.EMPTY;
    if (alt != 0) {
      r = r.withAlt(alt);
    }
    Backend b = director.pick(r);
    return b == null ? null : b.name();
  }
}

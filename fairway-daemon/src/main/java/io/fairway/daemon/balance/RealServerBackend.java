package io.fairway.daemon.balance;

import io.fairway.config.model.RealServer;
import io.fairway.director.Backend;

/** A configured real server as a director member: the director returns this, with its address. */
public record RealServerBackend(String name, RealServer realServer) implements Backend {

  /** Wraps a configured real server under its configured name. */
  public static RealServerBackend of(RealServer rs) {
    return new RealServerBackend(rs.name(), rs);
  }

  @Override
  public String toString() {
    return name;
  }
}

package io.fairway.config.model;

import java.util.Objects;
import java.util.Optional;

/**
 * Where a virtual server's traffic goes when its real servers cannot take it: {@code sorry_server}
 * (with {@code sorry_server_lvs_method} and {@code sorry_server_inhibit}) while quorum is lost, and
 * {@code overflow_to_sorry_server} (a Fairway extension). {@link #NONE} without a sorry server.
 *
 * @param server the server used while quorum is lost
 * @param overflow {@code overflow_to_sorry_server}: new connections go to the sorry server while
 *     every real server is over its {@code uthreshold} or quiesced, on the kernel's IPVS and on the
 *     userspace plane alike; off, both refuse them as the kernel does
 */
public record SorryPolicy(Optional<SorryServer> server, boolean overflow) {
  /** No sorry server, no overflow. */
  public static final SorryPolicy NONE = new SorryPolicy(Optional.empty(), false);

  public SorryPolicy {
    Objects.requireNonNull(server, "server");
  }
}

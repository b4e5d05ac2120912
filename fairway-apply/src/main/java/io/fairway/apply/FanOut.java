package io.fairway.apply;

import io.fairway.table.Dest;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Service;
import io.fairway.table.TableException;

/**
 * A real server's change made in every service of its virtual server, as keepalived's {@code
 * ipvs_group_cmd} fans it out to a group's members, with the destination as each service gets it.
 */
final class FanOut {
  private FanOut() {}

  /** One table call for one service. */
  interface ServiceOp {
    void apply(Service s) throws TableException;
  }

  static void forEachService(VsState vs, ServiceOp op) throws TableException {
    for (Service s : vs.config.services()) {
      op.apply(s);
    }
  }

  /**
   * The destination as the kernel gets it for one service: direct routing and tunnelling cannot
   * change the port, so their destinations take the service's (0 for a fwmark service), as
   * keepalived's ipvs_cmd does (ipvswrapper.c:601-621).
   */
  static Dest destFor(Service s, Dest d, int weight) {
    int port = d.port();
    if (d.forwarding() != ForwardingMethod.MASQ) {
      port = s.key().isFwmark() ? 0 : s.key().port();
    }
    return new Dest(
        d.address(),
        port,
        d.forwarding(),
        weight,
        d.upperThreshold(),
        d.lowerThreshold(),
        d.tunnel());
  }
}

package io.fairway.proxy;

import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.ForwardingMethod;
import io.fairway.config.model.VirtualServer;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * Derives a {@link ListenerSpec} from a configured {@code virtual_server}: what the daemon hands
 * {@link ProxyTable} for each service.
 *
 * <ul>
 *   <li>{@code lb_kind HTTP} is the HTTP proxy; PROXY, and NAT/DR/TUN (a production config tried
 *       with {@code --userspace}), the L4 relay.
 *   <li>The key source comes from the director's {@code by}: URL and HASH hash the request target,
 *       HEADER and COOKIE their value, everything else the client address.
 *   <li>Shard's {@code replicas}, {@code warmup}, {@code rampup}, {@code healthy} and fallback's
 *       {@code sticky} become director parameters.
 *   <li>{@code sorry_server} is named, so the table can overflow to it.
 *   <li>{@code proxy_timeouts} and {@code http_forwarded} pass as they are.
 * </ul>
 */
public final class ListenerSpecs {
  private ListenerSpecs() {}

  /** The listener spec of a configured virtual server. */
  public static ListenerSpec from(VirtualServer vs) {
    Mode mode = vs.forwarding().method() == ForwardingMethod.HTTP ? Mode.HTTP : Mode.TCP;
    KeySource key = KeySource.CLIENT;
    Map<String, String> params = new HashMap<>();
    DirectorSpec d = vs.director();
    if (d instanceof DirectorSpec.Hash h) {
      key = key(h.by());
    } else if (d instanceof DirectorSpec.Shard s) {
      key = key(s.by());
      params.put("replicas", Integer.toString(s.replicas()));
      params.put("warmup", Double.toString(s.warmup()));
      params.put("rampup", Double.toString(s.rampup().toNanos() / 1e9));
      params.put("healthy", s.healthy().name());
    } else if (d instanceof DirectorSpec.Fallback f) {
      params.put("sticky", Boolean.toString(f.sticky()));
    }
    if (vs.hashBalanceFactor() > 0) {
      params.put("hash_balance_factor", Integer.toString(vs.hashBalanceFactor()));
    }
    if (mode == Mode.TCP) {
      key = KeySource.CLIENT; // L4 has no request to take a key from
    }
    InetSocketAddress sorry =
        vs.sorryServer()
            .map(s -> new InetSocketAddress(s.id().address(), s.id().port()))
            .orElse(null);
    return new ListenerSpec(mode, key, params, sorry, vs.proxy());
  }

  private static KeySource key(io.fairway.config.model.KeySource by) {
    return switch (by.kind()) {
      case URL, HASH -> KeySource.URL;
      case HEADER -> KeySource.header(by.name().orElseThrow());
      case COOKIE -> KeySource.cookie(by.name().orElseThrow());
      default -> KeySource.CLIENT;
    };
  }
}

package io.fairway.proxy.table;

import io.fairway.config.model.LbKind;
import io.fairway.config.model.ProxySettings;
import io.fairway.plan.MemberPlan;
import io.fairway.plan.Selection;
import io.fairway.plan.ServicePlan;
import io.fairway.plan.SorryPlan;
import io.fairway.table.DestKey;
import io.fairway.table.ServiceKey;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the userspace data plane reads of a service's plan beyond its table {@code Service} value:
 * the kernel has no notion of HTTP, key sources, idents or decimal weights.
 *
 * @param mode TCP relay or HTTP reverse proxy
 * @param keySource where hashing directors take their key (HTTP only; L4 always uses the client)
 * @param selection the scheduler or director with its typed parameters; {@code null}, or one whose
 *     algorithm is not the table service's scheduler (someone changed the table behind the plan),
 *     means the scheduler's defaults ({@link Selection#defaults})
 * @param members the plan's members by their destination in this service, in plan order: name,
 *     ident and decimal weight, so a Varnish director here builds varnishd's ring. A planned member
 *     that is not in the table (down, or not yet checked) stays on the ring as a sick backend, as
 *     in varnishd; a destination without a plan entry is a member named {@code IP:PORT} at its
 *     table weight
 * @param sorryServer the virtual server's {@code sorry_server} when {@code
 *     overflow_to_sorry_server} is on, else {@code null}. The table uses it for <em>overflow</em>:
 *     when every real server is drained (weight 0) or over its {@code uthreshold}, new connections
 *     go here instead of being refused. When quorum is lost the apply layer installs the same
 *     address as an ordinary destination, as keepalived does in the kernel; the table recognises it
 *     by this address and never schedules it alongside the real servers.
 * @param proxy the virtual server's timeouts (those it does not set are the table's) and whether
 *     HTTP requests also get an RFC 7239 {@code Forwarded} header
 */
public record ListenerSpec(
    Mode mode,
    RequestKey keySource,
    @Nullable Selection selection,
    Map<DestKey, MemberPlan> members,
    @Nullable InetSocketAddress sorryServer,
    ProxySettings proxy) {

  public ListenerSpec {
    Objects.requireNonNull(mode, "mode");
    keySource = keySource == null || mode == Mode.TCP ? RequestKey.CLIENT : keySource;
    // In plan order: the hash and fallback directors depend on it, and the table's order is the
    // order the checkers happened to bring servers in.
    members =
        members == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(members));
    proxy = proxy == null ? ProxySettings.DEFAULTS : proxy;
  }

  public ListenerSpec(
      Mode mode,
      RequestKey keySource,
      @Nullable Selection selection,
      Map<DestKey, MemberPlan> members,
      @Nullable InetSocketAddress sorryServer) {
    this(mode, keySource, selection, members, sorryServer, ProxySettings.DEFAULTS);
  }

  /** Whether HTTP requests get an RFC 7239 {@code Forwarded} header too. */
  public boolean forwarded() {
    return proxy.forwarded();
  }

  public ListenerSpec withProxy(ProxySettings p) {
    return new ListenerSpec(mode, keySource, selection, members, sorryServer, p);
  }

  public ListenerSpec withTimeouts(ProxySettings.Timeouts t) {
    return withProxy(new ProxySettings(t, proxy.forwarded(), proxy.tls()));
  }

  /**
   * A plain L4 relay with no sorry server: the default for services the daemon did not describe.
   */
  public static ListenerSpec tcp() {
    return new ListenerSpec(Mode.TCP, RequestKey.CLIENT, null, Map.of(), null);
  }

  /** An HTTP reverse proxy keyed as given. */
  public static ListenerSpec http(RequestKey key) {
    return new ListenerSpec(Mode.HTTP, key, null, Map.of(), null);
  }

  public ListenerSpec withSorryServer(@Nullable InetSocketAddress sorry) {
    return new ListenerSpec(mode, keySource, selection, members, sorry, proxy);
  }

  public ListenerSpec withSelection(Selection s) {
    return new ListenerSpec(mode, keySource, s, members, sorryServer, proxy);
  }

  /**
   * The spec of one table service of a plan.
   *
   * <ul>
   *   <li>{@code lb_kind HTTP} is the HTTP proxy; PROXY, and NAT/DR/TUN (a production config tried
   *       with {@code --userspace}), the L4 relay.
   *   <li>The key source comes from the director's {@code by}: URL and HASH hash the request
   *       target, HEADER and COOKIE their value, everything else the client address.
   * </ul>
   */
  public static ListenerSpec of(ServicePlan plan, ServiceKey key) {
    Mode mode = plan.lbKind() == LbKind.HTTP ? Mode.HTTP : Mode.TCP;
    Map<DestKey, MemberPlan> members = new LinkedHashMap<>();
    for (MemberPlan m : plan.members()) {
      members.put(m.keyIn(key), m);
    }
    // The proxy overflows only with overflow_to_sorry_server, as the kernel plane does; without
    // it the sorry server is only what the applier installs when quorum is lost.
    InetSocketAddress sorry =
        plan.sorry()
            .filter(SorryPlan::overflow)
            .map(s -> new InetSocketAddress(s.dest().address(), s.dest().port()))
            .orElse(null);
    return new ListenerSpec(mode, key(plan.key()), plan.selection(), members, sorry, plan.proxy());
  }

  private static RequestKey key(io.fairway.config.model.KeySource by) {
    return switch (by.kind()) {
      case URL, HASH -> RequestKey.URL;
      case HEADER -> RequestKey.header(by.name().orElseThrow());
      case COOKIE -> RequestKey.cookie(by.name().orElseThrow());
      default -> RequestKey.CLIENT;
    };
  }
}

package io.fairway.proxy;

import io.fairway.config.model.ProxySettings;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;

/**
 * What the userspace data plane needs to know about a virtual service beyond its IPVS {@code
 * Service} value: the kernel has no notion of HTTP, key sources or director parameters, so the
 * daemon derives this from the configuration and hands it to {@link ProxyTable}.
 *
 * @param mode TCP relay or HTTP reverse proxy
 * @param keySource where hashing directors take their key (HTTP only; L4 always uses the client)
 * @param directorParams algorithm parameters by name (e.g. shard {@code replicas}, {@code
 *     rampup}, {@code warmup}); passed to the director library unchanged
 * @param sorryServer the virtual server's {@code sorry_server}, or {@code null}. The table uses it
 *     for <em>overflow</em>: when every real server is drained (weight 0) or over its {@code
 *     uthreshold}, new connections go here instead of being refused. When quorum is lost the
 *     apply layer installs the same address as an ordinary destination, as keepalived does in the
 *     kernel; the table recognises it by this address and never schedules it alongside the real
 *     servers.
 * @param proxy the virtual server's timeouts (those it does not set are the table's) and whether
 *     HTTP requests also get an RFC 7239 {@code Forwarded} header
 */
public record ListenerSpec(
    Mode mode,
    KeySource keySource,
    Map<String, String> directorParams,
    InetSocketAddress sorryServer,
    ProxySettings proxy) {

  public ListenerSpec {
    Objects.requireNonNull(mode, "mode");
    keySource = keySource == null ? KeySource.CLIENT : keySource;
    directorParams = directorParams == null ? Map.of() : Map.copyOf(directorParams);
    proxy = proxy == null ? ProxySettings.DEFAULTS : proxy;
  }

  public ListenerSpec(Mode mode, KeySource keySource, Map<String, String> directorParams, InetSocketAddress sorryServer) {
    this(mode, keySource, directorParams, sorryServer, ProxySettings.DEFAULTS);
  }

  /** Whether HTTP requests get an RFC 7239 {@code Forwarded} header too. */
  boolean forwarded() {
    return proxy.forwarded();
  }

  /** A plain L4 relay with no sorry server: the default for services the daemon did not describe. */
  public static ListenerSpec tcp() {
    return new ListenerSpec(Mode.TCP, KeySource.CLIENT, Map.of(), null);
  }

  /** An HTTP reverse proxy keyed as given. */
  public static ListenerSpec http(KeySource key) {
    return new ListenerSpec(Mode.HTTP, key, Map.of(), null);
  }

  public ListenerSpec withSorryServer(InetSocketAddress sorry) {
    return new ListenerSpec(mode, keySource, directorParams, sorry, proxy);
  }

  public ListenerSpec withDirectorParams(Map<String, String> params) {
    return new ListenerSpec(mode, keySource, params, sorryServer, proxy);
  }

  public ListenerSpec withProxy(ProxySettings p) {
    return new ListenerSpec(mode, keySource, directorParams, sorryServer, p);
  }

  public ListenerSpec withTimeouts(ProxySettings.Timeouts t) {
    return withProxy(new ProxySettings(t, proxy.forwarded()));
  }
}

package io.fairway.vrrp;

import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.vrrp.io.VrrpSocket;
import io.fairway.vrrp.packet.Advert;
import io.fairway.vrrp.packet.AdvertCodec;
import io.fairway.vrrp.packet.MalformedAdvertException;
import io.fairway.vrrp.view.DropKind;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which running instances a received datagram is for: keepalived's receive checks (TTL, the
 * advert's own checks, the source address, then each instance's version, password, interval and
 * address list), every drop counted by kind. Used on the event thread only.
 */
final class AdvertIntake {
  /** A valid advert and the instances that take it, in the configuration's order. */
  record Accepted(Advert advert, List<RunningInstance> instances) {}

  private final PacketCounters counters;
  private final AdvertSourceFilter sourceFilter = new AdvertSourceFilter();

  /** The running instances by socket, then virtual router id. */
  private final IdentityHashMap<VrrpSocket, Map<Integer, List<RunningInstance>>> byVrid =
      new IdentityHashMap<>();

  private VrrpConfig config = VrrpConfig.empty();

  AdvertIntake(PacketCounters counters) {
    this.counters = counters;
  }

  /** The configuration applied and its running instances (after a start or reload). */
  void index(VrrpConfig applied, Collection<RunningInstance> instances) {
    config = applied;
    byVrid.clear();
    for (RunningInstance in : instances) {
      byVrid
          .computeIfAbsent(in.socket, s -> new HashMap<>())
          .computeIfAbsent(in.cfg.virtualRouterId(), v -> new ArrayList<>())
          .add(in);
    }
  }

  /**
   * Checks a received datagram and finds the instances its advert is for.
   *
   * @param receivedAt when the datagram arrived (the speaker's clock)
   * @return the advert and the instances it is for; empty when it is for none
   */
  Optional<Accepted> accept(VrrpSocket s, VrrpSocket.Received r, long receivedAt) {
    if (r.ttl() != 255) {
      counters.count(DropKind.TTL);
      return Optional.empty();
    }
    InetAddress received = r.destination();
    InetAddress dst =
        received != null
            ? received
            : s.ipv4() ? config.globals().mcastGroup4() : config.globals().mcastGroup6();
    Advert a;
    try {
      a = AdvertCodec.decode(r.data(), r.payloadOffset(), r.payloadLength(), r.source(), dst);
    } catch (MalformedAdvertException e) {
      counters.count(DropKind.of(e.kind()));
      return Optional.empty();
    }
    Map<Integer, List<RunningInstance>> onSocket = byVrid.get(s);
    List<RunningInstance> candidates = onSocket == null ? null : onSocket.get(a.vrid());
    if (candidates == null) {
      return Optional.empty(); // another router id on this link: not ours
    }
    Optional<DropKind> badSource =
        sourceFilter.check(
            r.source(),
            candidates.get(0).cfg.interfaceName(),
            candidates.stream().map(RunningInstance::source).toList(),
            receivedAt);
    if (badSource.isPresent()) {
      counters.count(badSource.get());
      return Optional.empty();
    }
    List<RunningInstance> takers = new ArrayList<>();
    for (RunningInstance in : candidates) {
      if (r.source().equals(in.source())) {
        continue; // our own advert
      }
      Optional<DropKind> mismatch = in.mismatch(a, config.globals().skipCheckAdvAddr());
      if (mismatch.isPresent()) {
        counters.count(mismatch.get());
        continue;
      }
      takers.add(in);
    }
    return Optional.of(new Accepted(a, takers));
  }
}

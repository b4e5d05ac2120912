package io.fairway.daemon.discovery;

import io.fairway.config.model.Config;
import io.fairway.config.model.DnsDiscovery;
import io.fairway.config.model.DnsMember;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.RealServerId;
import io.fairway.config.model.VirtualServer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers every {@code real_server_dns} block currently stands for, and the model with them in
 * it. The kept answer follows the block's rules: a new answer replaces it; NXDOMAIN or no record
 * empties it only after {@code hold}; a failed query (timeout, SERVFAIL, no name server) never
 * does, so a name server that stops answering changes nothing.
 */
public final class Discovery {
  private static final Logger LOG = LoggerFactory.getLogger(Discovery.class);

  private final DnsResolver resolver;
  private final Clock clock;
  private final Map<String, BlockState> states = new LinkedHashMap<>();

  public Discovery(DnsResolver resolver, Clock clock) {
    this.resolver = resolver;
    this.clock = clock;
  }

  /**
   * The last resolution of a block.
   *
   * @param key virtual server name, DNS name and type
   * @param members the servers kept, canonical order
   * @param lastFound when the kept answer was received (null before any)
   * @param lastResolution when the last resolution ended
   * @param lastAnswer what it gave
   * @param location where the block is written
   * @param resolutions how many resolutions ended how, since the block was first resolved
   * @param used the real servers the last load took from the kept ones (max_servers and the family
   *     may leave some out), by name
   * @param leaving the servers that left the kept answer, since when: drained (weight 0) until
   *     {@code hold} has passed, then removed
   * @param draining the real servers the last load took from {@code leaving}, by name
   */
  public record BlockState(
      String key,
      List<Answer.Member> members,
      @Nullable Instant lastFound,
      Instant lastResolution,
      Answer lastAnswer,
      String location,
      Map<Answer.Outcome, Long> resolutions,
      List<String> used,
      Map<Answer.Member, Instant> leaving,
      List<String> draining) {
    public BlockState {
      members = List.copyOf(members);
      resolutions = Map.copyOf(resolutions);
      used = List.copyOf(used);
      leaving = Map.copyOf(leaving);
      draining = List.copyOf(draining);
    }

    BlockState withUsed(List<String> u, List<String> d) {
      return new BlockState(
          key,
          members,
          lastFound,
          lastResolution,
          lastAnswer,
          location,
          resolutions,
          u,
          leaving,
          d);
    }
  }

  static String key(VirtualServer vs, DnsDiscovery d) {
    return vs.name() + " " + d.name() + " " + d.type();
  }

  /** The blocks' last resolutions, in file order. */
  public synchronized List<BlockState> states() {
    return List.copyOf(states.values());
  }

  /**
   * Resolves every block of the model once.
   *
   * @return completes with true when a block's kept servers changed
   */
  public CompletableFuture<Boolean> refresh(Config config) {
    List<CompletableFuture<Boolean>> all = new ArrayList<>();
    for (VirtualServer vs : config.virtualServers()) {
      for (DnsDiscovery d : vs.discovery()) {
        all.add(resolver.resolve(d).thenApply(a -> update(key(vs, d), d, a)));
      }
    }
    return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]))
        .thenApply(v -> all.stream().anyMatch(CompletableFuture::join));
  }

  /** The longest wait before the next resolution: the shortest refresh or TTL, at least 1 s. */
  public synchronized Duration nextRefresh(Config config) {
    Duration next = Duration.ofDays(1);
    for (VirtualServer vs : config.virtualServers()) {
      for (DnsDiscovery d : vs.discovery()) {
        Duration wait = d.refresh();
        BlockState s = states.get(key(vs, d));
        if (s != null && s.lastAnswer().outcome() == Answer.Outcome.FOUND) {
          Duration ttl = s.lastAnswer().ttl();
          wait = ttl.compareTo(wait) < 0 ? ttl : wait;
        }
        next = wait.compareTo(next) < 0 ? wait : next;
      }
    }
    return next.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : next;
  }

  private synchronized boolean update(String key, DnsDiscovery d, Answer a) {
    Instant now = clock.instant();
    BlockState prev = states.get(key);
    List<Answer.Member> kept = prev == null ? List.of() : prev.members();
    Instant found = prev == null ? null : prev.lastFound();
    switch (a.outcome()) {
      case FOUND -> {
        kept = a.members().stream().sorted().toList();
        found = now;
      }
      case GONE -> {
        if (found == null || !now.isBefore(found.plus(d.hold()))) {
          kept = List.of();
        }
      }
      case FAILED -> LOG.warn("real_server_dns {} ({}): {}", d.name(), d.location(), a.error());
    }
    Map<Answer.Outcome, Long> counts = new java.util.EnumMap<>(Answer.Outcome.class);
    if (prev != null) {
      counts.putAll(prev.resolutions());
    }
    counts.merge(a.outcome(), 1L, Long::sum);
    List<Answer.Member> before = prev == null ? List.of() : prev.members();
    Map<Answer.Member, Instant> leaving = leaving(prev, before, kept, now, d.hold());
    states.put(
        key,
        new BlockState(
            key,
            kept,
            found,
            now,
            a,
            String.valueOf(d.location()),
            counts,
            prev == null ? List.of() : prev.used(),
            leaving,
            prev == null ? List.of() : prev.draining()));
    return !kept.equals(before)
        || !leaving.keySet().equals(prev == null ? Set.of() : prev.leaving().keySet());
  }

  /**
   * A server that left the kept answer is drained for {@code hold} before it is removed, so that
   * its connections can finish; one that comes back is simply kept again. A server is the same
   * server whatever its tier and weight ({@link Answer.Member#server}): one whose SRV priority or
   * weight changed has not left, it moves in place.
   */
  private static Map<Answer.Member, Instant> leaving(
      @Nullable BlockState prev,
      List<Answer.Member> before,
      List<Answer.Member> kept,
      Instant now,
      Duration hold) {
    Set<Answer.Server> still = new HashSet<>();
    kept.forEach(m -> still.add(m.server()));
    Map<Answer.Server, Map.Entry<Answer.Member, Instant>> out = new HashMap<>();
    if (prev != null) {
      prev.leaving().forEach((m, since) -> out.put(m.server(), Map.entry(m, since)));
    }
    for (Answer.Member m : before) {
      if (!still.contains(m.server())) {
        out.putIfAbsent(m.server(), Map.entry(m, now));
      }
    }
    out.keySet().removeAll(still);
    Map<Answer.Member, Instant> left = new HashMap<>();
    out.values().stream()
        .filter(e -> now.isBefore(e.getValue().plus(hold)))
        .forEach(e -> left.put(e.getKey(), e.getValue()));
    return left;
  }

  /**
   * The model with every block's kept servers added to its virtual server after the written ones,
   * in canonical order (so that mh, sh, shard and hash choose alike on every node); a server also
   * written in the file is the written one. More than {@code max_servers} are cut, with a warning
   * naming the block.
   */
  public synchronized Config expand(Config config) {
    List<VirtualServer> out = new ArrayList<>();
    Set<String> written = new HashSet<>();
    config.virtualServers().forEach(vs -> vs.discovery().forEach(d -> written.add(key(vs, d))));
    states.keySet().retainAll(written); // a block deleted from the file is forgotten
    for (VirtualServer vs : config.virtualServers()) {
      if (vs.discovery().isEmpty()) {
        out.add(vs);
        continue;
      }
      List<RealServer> reals = new ArrayList<>(vs.realServers());
      Set<RealServerId> ids = new HashSet<>();
      Set<String> names = new HashSet<>();
      reals.forEach(rs -> ids.add(rs.id()));
      reals.forEach(rs -> names.add(rs.name()));
      for (DnsDiscovery d : vs.discovery()) {
        String key = key(vs, d);
        BlockState s = states.get(key);
        List<Answer.Member> ms = s == null ? List.of() : s.members();
        if (ms.size() > d.maxServers()) {
          LOG.warn(
              "{}: real_server_dns {} answered {} servers; only the first {} (lowest tiers, then"
                  + " address order) are used (max_servers)",
              d.location(),
              d.name(),
              ms.size(),
              d.maxServers());
          // The lowest tiers first (a backup is cut before a server it stands in for).
          ms =
              ms.stream()
                  .sorted(
                      java.util.Comparator.comparingInt(Answer.Member::tier)
                          .thenComparing(java.util.Comparator.naturalOrder()))
                  .limit(d.maxServers())
                  .sorted()
                  .toList();
        }
        List<String> used = add(d, ms, false, reals, ids, names);
        List<Answer.Member> gone =
            s == null
                ? List.of()
                : s.leaving().keySet().stream().sorted().limit(d.maxServers()).toList();
        List<String> draining = add(d, gone, true, reals, ids, names);
        if (s != null) {
          states.put(key, s.withUsed(used, draining));
        }
      }
      out.add(vs.withRealServers(reals));
    }
    return new Config(
        config.globalDefs(),
        config.groups(),
        out,
        config.trackFiles(),
        config.ssl(),
        config.vrrp(),
        config.shardParams());
  }

  /** Adds the members' real servers not already there; returns their names. */
  private static List<String> add(
      DnsDiscovery d,
      List<Answer.Member> ms,
      boolean drained,
      List<RealServer> reals,
      Set<RealServerId> ids,
      Set<String> names) {
    List<String> added = new ArrayList<>();
    for (Answer.Member m : ms) {
      int port = d.type() == DnsDiscovery.RecordType.SRV ? m.port() : d.port();
      String name = d.type() == DnsDiscovery.RecordType.SRV ? m.name() : m.name() + ":" + port;
      if (m.address().getAddress().length != d.template().id().address().getAddress().length) {
        continue; // the other family than the virtual server's
      }
      RealServer rs = DnsMember.of(d, m.address(), port, name, m.weight(), drained, m.tier());
      if (ids.add(rs.id()) && names.add(rs.name())) {
        reals.add(rs);
        added.add(rs.name());
      }
    }
    return added;
  }
}

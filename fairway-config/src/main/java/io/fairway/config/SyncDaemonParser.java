package io.fairway.config;

import io.fairway.config.model.vrrp.LvsSyncDaemon;
import io.fairway.config.model.vrrp.VrrpInstance;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The IPVS sync daemon, from global_defs {@code lvs_sync_daemon} or an instance's deprecated {@code
 * lvs_sync_daemon_interface}. Its lines are collected as they come and resolved once every
 * vrrp_instance is built, because the daemon follows an instance and takes its router id.
 */
final class SyncDaemonParser {
  private static final Set<String> OPTIONS = Set.of("inst", "id", "maxlen", "port", "ttl", "group");

  private final Values v;
  private final VrrpValues values;

  /** {@code lvs_sync_daemon} lines of global_defs. */
  private final List<Node> lines = new ArrayList<>();

  /** {@code lvs_sync_daemon_interface} lines by instance name. */
  final Map<String, Node> interfaceNodes = new LinkedHashMap<>();

  SyncDaemonParser(VrrpValues values) {
    this.v = values.v;
    this.values = values;
  }

  void add(Node n) {
    lines.add(n);
  }

  /**
   * One sync daemon from {@code lvs_sync_daemon} or {@code lvs_sync_daemon_interface}, resolved
   * against the instances: keepalived's defaults (id = the instance's virtual_router_id, else 0)
   * and bounds; where keepalived reports a bad value and goes on without it, Fairway refuses it.
   * {@code instanceNodes} are every vrrp_instance written, kept or refused.
   */
  Optional<LvsSyncDaemon> build(Map<String, VrrpInstance> instances, List<Node> instanceNodes) {
    LvsSyncDaemon found = null;
    for (Node n : lines) {
      if (found != null) {
        v.error(n, "lvs_sync_daemon is given twice (first at " + found.location() + ")");
        continue;
      }
      found = line(n, instances, instanceNodes);
    }
    for (Map.Entry<String, Node> e : interfaceNodes.entrySet()) {
      Node c = e.getValue();
      if (found != null) {
        v.error(
            c,
            "lvs_sync_daemon_interface: the sync daemon is already given (at "
                + found.location()
                + "); keep one of them");
        continue;
      }
      if (!instances.containsKey(e.getKey())) {
        continue; // the instance itself was refused, and said why
      }
      found =
          new LvsSyncDaemon(
              Values.loc(c),
              c.arg(1),
              Optional.of(e.getKey()),
              0,
              OptionalInt.empty(),
              OptionalInt.empty(),
              OptionalInt.empty(),
              Optional.empty(),
              true);
    }
    return Optional.ofNullable(found);
  }

  /** The options of one {@code lvs_sync_daemon} line as written. */
  private static final class Draft {
    @Nullable String instance;
    @Nullable Integer id;
    OptionalInt maxLen = OptionalInt.empty();
    OptionalInt port = OptionalInt.empty();
    OptionalInt ttl = OptionalInt.empty();
    Optional<InetAddress> group = Optional.empty();
    boolean ok = true;
  }

  private @Nullable LvsSyncDaemon line(
      Node n, Map<String, VrrpInstance> instances, List<Node> instanceNodes) {
    if (!v.args(n, 1, Integer.MAX_VALUE) || !values.syncInterface(n, 1)) {
      return null;
    }
    Draft d = new Draft();
    for (int i = 2; i <= n.argc(); i++) {
      String w = n.arg(i);
      boolean option = OPTIONS.contains(w);
      if (option && i == n.argc()) {
        v.error(n, "lvs_sync_daemon: '" + w + "' needs a value");
        d.ok = false;
        continue;
      }
      i = option ? option(n, i, d) : positional(n, i, d);
    }
    VrrpInstance followed = null;
    if (d.instance != null) {
      followed = instances.get(d.instance);
      if (followed == null) {
        String name = d.instance;
        boolean refused =
            instanceNodes.stream().anyMatch(x -> x.argc() == 1 && x.arg(1).equals(name));
        if (!refused) {
          v.error(
              n,
              "lvs_sync_daemon: '"
                  + d.instance
                  + "' is not a vrrp_instance"
                  + Keywords.suggest(d.instance, instances.keySet())
                      .map(s -> " (did you mean '" + s + "'?)")
                      .orElse(""));
        }
        d.ok = false;
      }
    }
    if (!d.ok) {
      return null;
    }
    int syncId = d.id != null ? d.id : followed != null ? followed.virtualRouterId() : 0;
    return new LvsSyncDaemon(
        Values.loc(n),
        n.arg(1),
        Optional.ofNullable(d.instance),
        syncId,
        d.maxLen,
        d.port,
        d.ttl,
        d.group,
        false);
  }

  /** Reads the keyword option at {@code i} and its value; returns the index of the value. */
  private int option(Node n, int i, Draft d) {
    String w = n.arg(i);
    switch (w) {
      case "inst" -> {
        if (d.instance != null) {
          v.error(n, "lvs_sync_daemon: the VRRP instance is given twice");
          d.ok = false;
        }
        d.instance = n.arg(++i);
      }
      case "id" -> {
        Long x = v.number(n, ++i, 0, 255, "id");
        d.ok &= x != null;
        d.id = x == null ? null : x.intValue();
      }
      case "maxlen" -> {
        Long x = v.number(n, ++i, 1, LvsSyncDaemon.MAX_LEN, "maxlen");
        d.ok &= x != null;
        d.maxLen = x == null ? d.maxLen : OptionalInt.of(x.intValue());
      }
      case "port" -> {
        Long x = v.number(n, ++i, 1, 65535, "port");
        d.ok &= x != null;
        d.port = x == null ? d.port : OptionalInt.of(x.intValue());
      }
      case "ttl" -> {
        Long x = v.number(n, ++i, 1, 255, "ttl");
        d.ok &= x != null;
        d.ttl = x == null ? d.ttl : OptionalInt.of(x.intValue());
      }
      default -> {
        InetAddress a = v.address(n, ++i, "group");
        if (a != null && !a.isMulticastAddress()) {
          v.error(n, "lvs_sync_daemon: group " + n.arg(i) + " is not a multicast address");
          a = null;
        }
        d.ok &= a != null;
        d.group = Optional.ofNullable(a);
      }
    }
    return i;
  }

  /**
   * keepalived's older positional form: INTERFACE [VRRP_INSTANCE [SYNC_ID]]. Returns the index to
   * go on from.
   */
  private int positional(Node n, int i, Draft d) {
    String w = n.arg(i);
    if (i == 2) {
      d.instance = w;
    } else if (i == 3) {
      Long x = v.number(n, i, 0, 255, "id");
      d.ok &= x != null;
      if (x != null) {
        d.id = x.intValue();
        v.warn(
            n,
            "lvs_sync_daemon: write 'id "
                + w
                + "' (keepalived asks for the "
                + "keyword before the sync id too)");
      }
    } else {
      v.error(
          n,
          "lvs_sync_daemon: unknown option '"
              + w
              + "' (inst, id, maxlen, port, "
              + "ttl or group)");
      d.ok = false;
      return n.argc(); // its value, if it has one, is not another unknown option
    }
    return i;
  }
}

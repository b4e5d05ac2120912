package io.fairway.config;

import io.fairway.config.model.base.Script;
import io.fairway.config.model.vrrp.SyncGroup;
import io.fairway.config.model.vrrp.Track;
import io.fairway.config.model.vrrp.VrrpInstance;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A vrrp_sync_group block as written: the keyword table and the state its handlers fill. A group is
 * read after every instance, since its members must name instances that were kept, each in one
 * group only.
 */
final class SyncGroupBlock {
  private final VrrpValues values;
  private final Values v;
  private final String name;
  private final Map<String, VrrpInstance> instances;
  private final Map<String, String> memberOf;
  private @Nullable List<String> members;
  private final Map<String, Script> notify = new HashMap<>();
  private final List<Track> trackScripts = new ArrayList<>();

  /** Cleared by each mistake; all are reported before the group is dropped. */
  private boolean ok = true;

  private SyncGroupBlock(
      VrrpValues values,
      String name,
      Map<String, VrrpInstance> instances,
      Map<String, String> memberOf) {
    this.values = values;
    this.v = values.v;
    this.name = name;
    this.instances = instances;
    this.memberOf = memberOf;
  }

  private static final KeywordTable<SyncGroupBlock> TABLE = table();

  private static KeywordTable<SyncGroupBlock> table() {
    KeywordTable<SyncGroupBlock> t = new KeywordTable<>();
    t.on("group", SyncGroupBlock::group);
    t.on(
        List.of("notify_master", "notify_backup", "notify_fault", "notify_stop", "notify"),
        (g, c) -> g.values.notifyScript(c, g.notify));
    t.on("track_script", (g, c) -> g.values.tracks(c, g.trackScripts, "track_script"));
    t.on("smtp_alert", (g, c) -> g.v.warn(c, "'smtp_alert' is not used by Fairway; ignored"));
    return t;
  }

  /**
   * The sync group {@code n}, its members taken from {@code instances} and recorded in {@code
   * memberOf}; null when it is refused (and said why).
   */
  static @Nullable SyncGroup read(
      VrrpValues values,
      Node n,
      Map<String, VrrpInstance> instances,
      Map<String, String> memberOf) {
    Values v = values.v;
    if (n.argc() != 1) {
      v.error(n, "vrrp_sync_group needs exactly one name");
      return null;
    }
    if (!v.block(n)) {
      return null;
    }
    SyncGroupBlock g = new SyncGroupBlock(values, n.arg(1), instances, memberOf);
    for (Node c : n.block()) {
      if (!TABLE.dispatch(g, c)) {
        g.unknown(c);
      }
    }
    if (g.members == null || g.members.isEmpty()) {
      v.error(n, "vrrp_sync_group " + g.name + " has no 'group { INSTANCE ... }'");
      return null;
    }
    if (!g.ok) {
      return null;
    }
    for (String m : g.members) {
      memberOf.put(m, g.name);
    }
    return new SyncGroup(
        Values.loc(n), g.name, g.members, VrrpValues.notify(g.notify), g.trackScripts);
  }

  private void unknown(Node c) {
    if (instances.containsKey(c.keyword())) {
      v.error(
          c,
          "vrrp_sync_group "
              + name
              + ": instance names go inside "
              + "'group { ... }' (keepalived 2.x syntax)");
    } else {
      v.unknown(c, TABLE.known(), "vrrp_sync_group");
    }
    ok = false;
  }

  private static void group(SyncGroupBlock g, Node c) {
    if (!g.v.block(c)) {
      g.ok = false;
      return;
    }
    if (g.members != null) {
      g.v.error(c, "vrrp_sync_group " + g.name + ": 'group' is given twice");
      g.ok = false;
      return;
    }
    g.members = new ArrayList<>();
    for (Node m : c.block()) {
      for (String word : m.words) {
        g.member(m, word);
      }
    }
  }

  private void member(Node m, String word) {
    if (!instances.containsKey(word)) {
      v.error(
          m,
          "vrrp_sync_group "
              + name
              + ": '"
              + word
              + "' is not a "
              + "vrrp_instance"
              + Keywords.suggest(word, instances.keySet())
                  .map(s -> " (did you mean '" + s + "'?)")
                  .orElse(""));
      ok = false;
    } else if (memberOf.containsKey(word)) {
      v.error(m, "vrrp_instance " + word + " is already in vrrp_sync_group " + memberOf.get(word));
      ok = false;
    } else if (Objects.requireNonNull(members, "members are read after 'group' opens them")
        .contains(word)) {
      v.error(m, "vrrp_sync_group " + name + ": '" + word + "' is listed twice");
      ok = false;
    } else {
      members.add(word);
    }
  }
}

package io.fairway.vrrp;

import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpInstance;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a reload changes in the VRRP instances, as keepalived's reload sees it: an instance is
 * matched by name; one whose interface, router id, address family, version or unicast source
 * changed is another instance (the old one stops, the new one starts in BACKUP); any other change
 * is applied to the running instance, which keeps its state; an equal one is untouched. Locations
 * never count (two {@code Location}s are always equal).
 *
 * @param removed instances that stop (gone, or replaced by another instance of the same name)
 * @param added instances that start (new, or the replacements)
 * @param changed running instances that get new settings, with the names of what changed
 * @param unchanged running instances left alone
 */
public record VrrpDiff(
    List<String> removed,
    List<String> added,
    Map<String, List<String>> changed,
    List<String> unchanged) {
  public VrrpDiff {
    removed = List.copyOf(removed);
    added = List.copyOf(added);
    changed = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(changed));
    unchanged = List.copyOf(unchanged);
  }

  public static VrrpDiff of(VrrpConfig before, VrrpConfig after) {
    List<String> removed = new ArrayList<>();
    List<String> added = new ArrayList<>();
    Map<String, List<String>> changed = new LinkedHashMap<>();
    List<String> unchanged = new ArrayList<>();
    for (VrrpInstance old : before.instances()) {
      VrrpInstance now = after.instance(old.name()).orElse(null);
      if (now == null || !sameIdentity(old, now)) {
        removed.add(old.name());
      }
    }
    for (VrrpInstance now : after.instances()) {
      VrrpInstance old = before.instance(now.name()).orElse(null);
      if (old == null || !sameIdentity(old, now)) {
        added.add(now.name());
      } else if (old.equals(now)) {
        unchanged.add(now.name());
      } else {
        changed.put(now.name(), differences(old, now));
      }
    }
    return new VrrpDiff(removed, added, changed, unchanged);
  }

  /** What makes an instance the same router on the wire: where and how it speaks. */
  static boolean sameIdentity(VrrpInstance a, VrrpInstance b) {
    return a.interfaceName().equals(b.interfaceName())
        && a.virtualRouterId() == b.virtualRouterId()
        && a.family() == b.family()
        && a.version() == b.version()
        && a.unicastSource().equals(b.unicastSource());
  }

  /** The names of the record components that differ ({@code priority}, {@code scripts}, ...). */
  static List<String> differences(VrrpInstance a, VrrpInstance b) {
    List<String> out = new ArrayList<>();
    for (RecordComponent c : VrrpInstance.class.getRecordComponents()) {
      try {
        if (!Objects.equals(c.getAccessor().invoke(a), c.getAccessor().invoke(b))) {
          out.add(c.getName());
        }
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
    return out;
  }

  public boolean isEmpty() {
    return removed.isEmpty() && added.isEmpty() && changed.isEmpty();
  }

  /**
   * One line for the log: {@code added VI_2; removed VI_3; changed VI_1 (priority); 4 unchanged}.
   */
  public String summary() {
    List<String> parts = new ArrayList<>();
    List<String> replaced = added.stream().filter(removed::contains).toList();
    List<String> onlyAdded = added.stream().filter(n -> !removed.contains(n)).toList();
    List<String> onlyRemoved = removed.stream().filter(n -> !added.contains(n)).toList();
    if (!onlyAdded.isEmpty()) {
      parts.add("added " + String.join(", ", onlyAdded));
    }
    if (!onlyRemoved.isEmpty()) {
      parts.add("removed " + String.join(", ", onlyRemoved));
    }
    if (!replaced.isEmpty()) {
      parts.add(
          "restarted "
              + String.join(", ", replaced)
              + " (interface, virtual_router_id, family, version or unicast_src_ip changed)");
    }
    changed.forEach((n, what) -> parts.add("changed " + n + " (" + String.join(", ", what) + ")"));
    parts.add(unchanged.size() + " unchanged");
    return String.join("; ", parts);
  }
}

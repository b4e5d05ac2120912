package io.fairway.vrrp;

import io.fairway.config.model.vrrp.SyncGroup;
import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.vrrp.io.Link;
import io.fairway.vrrp.state.Router;
import io.fairway.vrrp.state.State;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The instances and sync groups the speaker runs, by name and by router, as a reload replaces them:
 * new ones made, unchanged ones kept as they run, changed ones reconfigured with their state kept,
 * groups rebuilt over the new routers in the state they had. Changed on the event thread; {@link
 * #published} and {@link #publishedGroups} are read by any thread.
 */
final class RunningInstances {
  private static final Logger log = LoggerFactory.getLogger(RunningInstances.class);

  private final Map<String, RunningInstance> byName = new LinkedHashMap<>();
  private final IdentityHashMap<Router, RunningInstance> byRouter = new IdentityHashMap<>();
  private final Map<String, RunningGroup> groups = new LinkedHashMap<>();
  private volatile List<RunningInstance> published = List.of();
  private volatile List<RunningGroup> publishedGroups = List.of();

  /** Every instance, in the configuration's order. */
  Collection<RunningInstance> all() {
    return byName.values();
  }

  @Nullable RunningInstance get(String name) {
    return byName.get(name);
  }

  /** The instance whose state machine {@code r} is. */
  RunningInstance of(Router r) {
    RunningInstance in = byRouter.get(r);
    if (in == null) {
      throw new IllegalStateException("unknown router " + r.name());
    }
    return in;
  }

  Collection<RunningGroup> groups() {
    return groups.values();
  }

  /**
   * Forgets every group (none notifies while instances come and go).
   *
   * @return the state each had, by name
   */
  Map<String, State> dropGroups() {
    Map<String, State> states = new HashMap<>();
    groups.forEach((n, g) -> states.put(n, g.last));
    groups.clear();
    return states;
  }

  /** Forgets a stopped instance. */
  void remove(String name) {
    RunningInstance in = byName.remove(name);
    if (in != null) {
      byRouter.remove(in.router);
    }
  }

  /**
   * The new configuration's instances in its order: new ones, unchanged ones as they run, changed
   * ones with their state kept.
   *
   * @param links the new instances' links, by name
   * @param masterChanged told (old, new) of each changed instance that is master, whose addresses
   *     may have to move
   * @return the new ones, still to start
   */
  List<RunningInstance> place(
      VrrpConfig next,
      VrrpDiff diff,
      Map<String, Link> links,
      SpeakerSockets sockets,
      BiConsumer<RunningInstance, RunningInstance> masterChanged) {
    Map<String, RunningInstance> kept = new HashMap<>(byName);
    byName.clear();
    byRouter.clear();
    List<RunningInstance> started = new ArrayList<>();
    for (VrrpInstance ni : next.instances()) {
      RunningInstance old = kept.get(ni.name());
      RunningInstance in;
      if (old == null) {
        // links has every new instance's link: SystemCheck refused the configuration otherwise.
        in = RunningInstance.started(ni, Objects.requireNonNull(links.get(ni.name())));
        started.add(in);
      } else if (diff.unchanged().contains(ni.name())) {
        in = old;
      } else {
        in = RunningInstance.reconfigured(old, ni, links.getOrDefault(ni.name(), old.link));
        log.info(
            "({}) changed by the reload: {}; state {} kept",
            ni.name(),
            String.join(", ", diff.changed().get(ni.name())),
            in.router.state());
        if (in.router.state() == State.MASTER) {
          masterChanged.accept(old, in);
        }
      }
      in.socket = sockets.of(next, ni);
      byName.put(ni.name(), in);
      byRouter.put(in.router, in);
    }
    return started;
  }

  /** The sync groups over the placed routers, each in the state it had ({@link #dropGroups}). */
  void rebuildGroups(VrrpConfig next, Map<String, State> before) {
    for (RunningInstance in : byName.values()) {
      in.router.leaveGroup();
    }
    for (SyncGroup g : next.syncGroups()) {
      // The configuration names only its own instances as members, and all of them were placed.
      List<Router> members =
          g.members().stream().map(m -> Objects.requireNonNull(byName.get(m)).router).toList();
      groups.put(g.name(), new RunningGroup(g, members, before.getOrDefault(g.name(), State.INIT)));
    }
  }

  /** Makes the instances and groups as they are now the ones status readers see. */
  void publish() {
    published = List.copyOf(byName.values());
    publishedGroups = List.copyOf(groups.values());
  }

  List<RunningInstance> published() {
    return published;
  }

  List<RunningGroup> publishedGroups() {
    return publishedGroups;
  }
}

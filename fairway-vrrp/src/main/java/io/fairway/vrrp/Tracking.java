package io.fairway.vrrp;

import io.fairway.config.model.vrrp.Track;
import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.config.model.vrrp.VrrpScript;
import io.fairway.vrrp.io.Link;
import io.fairway.vrrp.io.LinkWatch;
import io.fairway.vrrp.state.Priority;
import io.fairway.vrrp.state.ScriptStatus;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * What an instance tracks, turned into a fault and a priority change as keepalived does:
 * track_interface (and its own interface), vrrp_script results (its own and its sync group's) and
 * track_file values. Holds the vrrp_scripts' runs and the track_file paths; used on the event
 * thread only.
 */
final class Tracking implements Closeable {
  /**
   * An instance's tracking now.
   *
   * @param fault something it tracks puts it in FAULT
   * @param change the sum of the weights to add to its configured priority
   * @param link its interface, present when it exists and is up
   */
  record Tracked(boolean fault, int change, Optional<Link> link) {}

  private final LinkWatch linkWatch;
  private final LongSupplier clock;
  private final Map<String, ScriptRun> scriptRuns = new LinkedHashMap<>();
  private Map<String, Path> trackFilePaths = Map.of();
  private List<InetAddress> allVips = List.of();

  /**
   * Interfaces read in this poll cycle: reading one asks the kernel for every interface's
   * addresses, so 100 instances on one interface read it once, not 100 times.
   */
  private final Map<String, Optional<Link>> cycleLinks = new HashMap<>();

  /**
   * @param linkWatch reads interfaces
   * @param clock the speaker's monotonic nanoseconds
   */
  Tracking(LinkWatch linkWatch, LongSupplier clock) {
    this.linkWatch = linkWatch;
    this.clock = clock;
  }

  /**
   * A configuration's scripts, track files and virtual addresses (not counted as an interface's
   * own): an unchanged vrrp_script keeps its runs, a changed one starts again now with the previous
   * verdict, as keepalived keeps a reloaded script's result.
   */
  void configure(VrrpConfig next, Map<String, Path> trackFiles, long now) {
    trackFilePaths = trackFiles;
    allVips = next.instances().stream().flatMap(i -> RunningInstance.vipsOf(i).stream()).toList();
    Map<String, ScriptRun> old = new HashMap<>(scriptRuns);
    scriptRuns.clear();
    for (VrrpScript s : next.scripts()) {
      ScriptRun was = old.get(s.name());
      if (was != null && was.cfg.equals(s)) {
        scriptRuns.put(s.name(), was);
        continue;
      }
      ScriptStatus st = new ScriptStatus(s.rise(), s.fall(), s.initFail());
      // The verdict carries, the counts restart.
      if (was != null && was.status.ok().isPresent()) {
        st.record(was.status.ok().get());
      }
      scriptRuns.put(s.name(), new ScriptRun(s, st, now));
    }
  }

  /** Interfaces are read afresh: a reload may have changed them (addresses it removed). */
  void forgetLinks() {
    cycleLinks.clear();
    linkWatch.forget();
  }

  /** The vrrp_scripts' runs, in the configuration's order. */
  Collection<ScriptRun> scriptRuns() {
    return scriptRuns.values();
  }

  /** Whether {@code run} is still its script's (a reload may have removed or replaced it). */
  boolean current(ScriptRun run) {
    return scriptRuns.get(run.cfg.name()) == run;
  }

  /** A new poll cycle: interfaces are read again. */
  void newCycle() {
    cycleLinks.clear();
  }

  /** Instance {@code c}'s tracking now. */
  Tracked evaluate(VrrpInstance c, VrrpConfig config) {
    boolean fault = false;
    int sum = 0;
    Optional<Link> link = link(c.interfaceName());
    if (link.isEmpty() || !link.get().up()) {
      fault = true;
      link = Optional.empty();
    }
    for (Track t : c.trackInterfaces()) {
      boolean up = link(t.name()).map(Link::up).orElse(false);
      int w = t.weight().orElse(0);
      fault |= Priority.faults(w, t.reverse(), up);
      sum += Priority.contribution(w, t.reverse(), up);
    }
    List<Track> scriptTracks = new ArrayList<>(c.trackScripts());
    config.groupOf(c.name()).ifPresent(g -> scriptTracks.addAll(g.trackScripts()));
    for (Track t : scriptTracks) {
      Optional<VrrpScript> s = config.script(t.name());
      ScriptRun run = scriptRuns.get(t.name());
      if (s.isEmpty() || run == null || run.status.ok().isEmpty()) {
        continue;
      }
      int w = t.weight().orElse(s.get().weight());
      boolean rev = t.weight().isPresent() ? t.reverse() : s.get().reverse();
      boolean ok = run.status.ok().get();
      fault |= Priority.faults(w, rev, ok);
      sum += Priority.contribution(w, rev, ok);
    }
    for (Track t : c.trackFiles()) {
      long value = readTrackFile(t.name());
      int w = t.weight().orElse(1);
      // keepalived: value x weight is added; with weight 0 a non-zero value is a fault.
      if (w == 0) {
        fault |= (value != 0) != t.reverse();
      } else {
        sum += (int) Math.max(-254, Math.min(254, value * w * (t.reverse() ? -1 : 1)));
      }
    }
    return new Tracked(fault, sum, link);
  }

  private Optional<Link> link(String name) {
    return cycleLinks.computeIfAbsent(name, n -> linkWatch.get(n, allVips, clock.getAsLong()));
  }

  private long readTrackFile(String name) {
    Path p = trackFilePaths.get(name);
    if (p == null) {
      return 0;
    }
    try {
      String s = Files.readString(p).trim();
      return s.isEmpty() ? 0 : Long.parseLong(s.split("\\s+")[0]);
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
  }

  @Override
  public void close() {
    linkWatch.close();
  }
}

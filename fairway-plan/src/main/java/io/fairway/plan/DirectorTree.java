package io.fairway.plan;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Director;
import io.fairway.director.Member;
import io.fairway.director.RandomSource;
import io.fairway.director.Request;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The directors of one service as Varnish layers them: its own director on top, and the named
 * directors of a {@link Selection.Layered} under it, each a member of the directors that name it. A
 * request resolves down the layers when it comes (Varnish's {@code resolve=LAZY}): a fallback over
 * two shards asks the first shard that is up, and that shard its ring. The same tree serves {@code
 * fairway pick} and the data plane, so both resolve the same way.
 */
public final class DirectorTree {
  private final AbstractDirector<?> top;
  private final Selection.Varnish selection;

  /** The named directors, leaves first. */
  private final Map<String, AbstractDirector<?>> groups = new LinkedHashMap<>();

  /**
   * The directors of {@code selection}, without members yet ({@link #update}).
   *
   * @param random the random directors' generator ({@code null}: per-thread)
   * @throws IllegalArgumentException a parameter the director library refuses
   */
  public DirectorTree(String name, Selection.Varnish selection, @Nullable RandomSource random) {
    this(name, selection, random, null);
  }

  /**
   * The same, on a given nanosecond clock for every director of the tree ({@link
   * DirectorFactory#create(String, Selection.Varnish, RandomSource,
   * java.util.function.LongSupplier)}).
   */
  public DirectorTree(
      String name,
      Selection.Varnish selection,
      @Nullable RandomSource random,
      java.util.function.@Nullable LongSupplier clock) {
    this.selection = selection;
    this.top = DirectorFactory.create(name, selection, random, clock);
    if (selection instanceof Selection.Layered l) {
      for (Selection.Layered.Group g : l.groups()) {
        groups.put(g.name(), DirectorFactory.create(g.name(), g.selection(), random, clock));
      }
    }
  }

  /** The service's own director: picks start here. */
  public AbstractDirector<?> top() {
    return top;
  }

  /** Whether the top director has other directors among its members. */
  public boolean layered() {
    return selection instanceof Selection.Layered;
  }

  /** The named directors, leaves first (empty when not layered). */
  public Map<String, AbstractDirector<?>> groups() {
    return java.util.Collections.unmodifiableMap(groups);
  }

  /**
   * Publishes every layer's members, leaves first so a parent sees its children's health: a nested
   * director as a member of weight 1 (its health is its members'), a real server as {@code server}
   * gives it for that director (its previous member there, to keep a rampup clock), or left out
   * when it gives {@code null}. Only for a layered tree; a plain director's members are the
   * caller's to publish on {@link #top()}.
   */
  public void update(BiFunction<AbstractDirector<?>, String, @Nullable Member> server) {
    Selection.Layered l = (Selection.Layered) selection;
    for (Selection.Layered.Group g : l.groups()) {
      publish(group(g.name()), g.members(), server);
    }
    publish(top, l.members(), server);
  }

  private void publish(
      AbstractDirector<?> d,
      List<Selection.Layered.Ref> refs,
      BiFunction<AbstractDirector<?>, String, @Nullable Member> server) {
    List<Member> next = new ArrayList<>(refs.size());
    for (Selection.Layered.Ref r : refs) {
      if (r instanceof Selection.Layered.Nested n) {
        next.add(Member.of(group(n.name())));
      } else {
        Member m = server.apply(d, r.name());
        if (m != null) {
          next.add(m);
        }
      }
    }
    d.update(cur -> next);
  }

  /**
   * A named director of the tree. The constructor built one per group, so only a {@link
   * Selection.Layered} whose reference names no group of its own finds none.
   */
  private AbstractDirector<?> group(String name) {
    AbstractDirector<?> d = groups.get(name);
    if (d == null) {
      throw new IllegalArgumentException("no director named " + name + " in this service");
    }
    return d;
  }

  /** The real server a request resolves to, or {@code null}. */
  public @Nullable Backend pick(Request r) {
    return top.pick(r);
  }

  /**
   * The directors a request passes through below the top and the real server it ends on, in order
   * ({@code [primary, b3]}); the last element is {@code null} when no server is found.
   */
  public List<@Nullable Backend> route(Request r) {
    List<@Nullable Backend> out = new ArrayList<>(3);
    Backend b = top.choose(r);
    for (int depth = 0; b instanceof Director d && depth < 64; depth++) {
      out.add(d);
      b = d.choose(r);
    }
    out.add(b instanceof Director ? null : b);
    return out;
  }
}

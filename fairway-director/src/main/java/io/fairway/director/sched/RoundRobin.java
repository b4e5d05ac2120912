package io.fairway.director.sched;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code rr} (ip_vs_rr.c): the next usable server after the one picked last, in list order. The
 * cursor survives membership changes the way the kernel's list pointer does: a removed cursor falls
 * back to its predecessor.
 *
 * <p>Slow start: a ramping server is admitted on a fraction of its turns ({@link SchedDest#admit});
 * a declined turn goes to the next usable server, as if the ramping one were not there, and the
 * cursor moves past both. When nobody else is usable the ramping server takes the connection
 * anyway: a ramp never refuses.
 */
final class RoundRobin implements KernelScheduler {
  private SchedDest[] dests = new SchedDest[0];

  /** Index of the server picked last; -1 is the list head (start from the first server). */
  private int cursor = -1;

  @Override
  public String name() {
    return "rr";
  }

  @Override
  public synchronized void update(List<SchedDest> kernelOrder) {
    SchedDest[] next = kernelOrder.toArray(new SchedDest[0]);
    int newCursor = -1;
    // Walk back from the cursor to the nearest server still present (the kernel's p->next->prev).
    for (int i = cursor; i >= 0; i--) {
      int at = indexOf(next, dests[i]);
      if (at >= 0) {
        newCursor = at;
        break;
      }
    }
    dests = next;
    cursor = newCursor;
  }

  /**
   * A batch: the cursor moves as {@code del_dest} would have moved it at each deletion, over the
   * list as it was then (the old servers still there, below the ones the batch added at the head),
   * in one pass over the list.
   */
  @Override
  public synchronized void update(List<SchedDest> kernelOrder, List<MemberChange> changes) {
    if (cursor >= 0) {
      dests = dests.clone();
      cursor = cursorAfter(changes);
    }
    update(kernelOrder);
  }

  /**
   * The cursor's index in {@link #dests} after replaying {@code changes}, with the dests it points
   * at rewritten: a cursor that ends on a server the batch added is put at the old list's head, and
   * {@code dests} gets it in slot 0, so that {@link #update(List)} then finds it there.
   */
  private int cursorAfter(List<MemberChange> changes) {
    java.util.IdentityHashMap<SchedDest, Integer> oldAt = new java.util.IdentityHashMap<>();
    for (int i = 0; i < dests.length; i++) oldAt.put(dests[i], i);
    boolean[] gone = new boolean[dests.length];
    // Servers the batch added, oldest first (the one nearest the old list); the kernel's head is
    // the last.
    List<SchedDest> added = new java.util.ArrayList<>();
    java.util.IdentityHashMap<SchedDest, Integer> addedAt = new java.util.IdentityHashMap<>();
    java.util.Set<Integer> addedGone = new java.util.HashSet<>();
    int oldCursor = cursor; // index into dests, or -1
    int newCursor = -1; // index into added, or -1; used once the cursor left the old list
    boolean inAdded = false;
    for (MemberChange c : changes) {
      SchedDest d = c.dest();
      if (c.kind() == MemberChange.Kind.ADD) {
        addedAt.put(d, added.size());
        added.add(d);
        continue;
      }
      if (c.kind() != MemberChange.Kind.DELETE) continue;
      Integer a = addedAt.remove(d);
      if (a != null) {
        addedGone.add(a);
        if (inAdded && newCursor == a) {
          // Its predecessor: the next server added after it that is still there, else the head.
          int j = a + 1;
          while (j < added.size() && addedGone.contains(j)) j++;
          newCursor = j < added.size() ? j : -1;
          if (newCursor < 0) inAdded = false;
        }
        continue;
      }
      Integer o = oldAt.remove(d);
      if (o == null) continue;
      gone[o] = true;
      if (!inAdded && oldCursor == o) {
        int j = o - 1;
        while (j >= 0 && gone[j]) j--;
        oldCursor = j;
        if (j < 0) {
          // Past the old list's top: the first server the batch added that is still there, or the
          // head.
          int k = 0;
          while (k < added.size() && addedGone.contains(k)) k++;
          if (k < added.size()) {
            inAdded = true;
            newCursor = k;
          }
        }
      }
    }
    if (!inAdded) return oldCursor;
    if (newCursor < 0) return -1;
    dests[0] = added.get(newCursor);
    return 0;
  }

  private static int indexOf(SchedDest[] a, SchedDest d) {
    for (int i = 0; i < a.length; i++) if (a[i].equals(d)) return i;
    return -1;
  }

  @Override
  public synchronized @Nullable SchedDest pick(
      int clientFold, int clientPort, int destinationFold) {
    SchedDest[] d = dests;
    int n = d.length;
    int declined = -1;
    // From the server after the cursor, around the list, ending with the cursor itself.
    for (int k = 1; k <= n; k++) {
      int i = cursor < 0 ? k - 1 : (cursor + k) % n;
      SchedDest dest = d[i];
      if (!dest.overloaded() && dest.weight() > 0) {
        if (dest.admit()) {
          cursor = i;
          return dest;
        }
        if (declined < 0) declined = i;
      }
    }
    if (declined >= 0) {
      cursor = declined;
      return d[declined];
    }
    return null;
  }
}

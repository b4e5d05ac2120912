package io.fairway.director.sched;

import java.util.List;

/**
 * {@code rr} (ip_vs_rr.c): the next usable server after the one picked last, in list order. The cursor survives
 * membership changes the way the kernel's list pointer does: a removed cursor falls back to its predecessor.
 *
 * <p>Slow start: a ramping server is admitted on a fraction of its turns ({@link Dest#admit}); a declined turn goes
 * to the next usable server, as if the ramping one were not there, and the cursor moves past both. When nobody
 * else is usable the ramping server takes the connection anyway: a ramp never refuses.
 */
final class RoundRobin implements KernelScheduler {
    private Dest[] dests = new Dest[0];
    /** Index of the server picked last; -1 is the list head (start from the first server). */
    private int cursor = -1;

    @Override
    public String name() { return "rr"; }

    @Override
    public synchronized void update(List<Dest> kernelOrder) {
        Dest[] next = kernelOrder.toArray(new Dest[0]);
        int newCursor = -1;
        // Walk back from the cursor to the nearest server still present (the kernel's p->next->prev).
        for (int i = cursor; i >= 0; i--) {
            int at = indexOf(next, dests[i]);
            if (at >= 0) { newCursor = at; break; }
        }
        dests = next;
        cursor = newCursor;
    }

    private static int indexOf(Dest[] a, Dest d) {
        for (int i = 0; i < a.length; i++) if (a[i] == d) return i;
        return -1;
    }

    @Override
    public synchronized Dest pick(int clientFold, int clientPort, int destinationFold) {
        Dest[] d = dests;
        int n = d.length;
        int declined = -1;
        // From the server after the cursor, around the list, ending with the cursor itself.
        for (int k = 1; k <= n; k++) {
            int i = cursor < 0 ? k - 1 : (cursor + k) % n;
            Dest dest = d[i];
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

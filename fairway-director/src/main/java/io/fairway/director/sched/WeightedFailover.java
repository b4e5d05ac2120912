package io.fairway.director.sched;

/**
 * {@code fo} (ip_vs_fo.c): everything to the usable server with the highest weight; the first of equals in list
 * order. Operators use weights as priorities: the backup takes over only when the primary is quiesced or full.
 */
final class WeightedFailover extends ListScheduler {
    @Override
    public String name() { return "fo"; }

    @Override
    public Dest pick(int clientFold, int clientPort, int destinationFold) {
        Dest best = null;
        int hw = 0;
        for (Dest d : dests) {
            int w = d.weight();
            if (!d.overloaded() && w > hw) {
                best = d;
                hw = w;
            }
        }
        return best;
    }
}

package io.fairway.director.sched;

/**
 * {@code lc} (ip_vs_lc.c): the server with the lowest overhead, where an active connection costs 256 inactive ones.
 * Weight only matters as "zero means quiesced"; the first of equals in list order wins.
 */
final class LeastConnection extends ListScheduler {
    @Override
    public String name() { return "lc"; }

    @Override
    public Dest pick(int clientFold, int clientPort, int destinationFold) {
        Dest least = null;
        long loh = 0;
        for (Dest d : dests) {
            if (d.overloaded() || d.weight() == 0) continue;
            long doh = d.connOverhead();
            if (least == null || doh < loh) {
                least = d;
                loh = doh;
            }
        }
        return least;
    }
}

package io.fairway.director.sched;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A virtual server as the userspace data plane sees it: its real servers with live counts, the kernel scheduler,
 * persistence templates, and the one thing the kernel cannot do — overflow to the sorry server.
 *
 * <h2>Overflow to the sorry server</h2>
 * When the scheduler finds no server (every real server overloaded by its {@code uthreshold}, or quiesced with weight
 * 0, or — for sh/dh/mh without fallback — the client's own server is), the kernel drops the connection. Here it goes
 * to {@code sorry_server} instead, and is counted there. No persistence template is made for it, so as soon as one
 * real server has room again (its count fell below {@code lthreshold}, or 3/4 of {@code uthreshold}) the next new
 * connection goes back to the pool.
 *
 * <p>Membership changes are serialised; scheduling reads immutable copies and may run on any thread.
 */
public final class VirtualService {
    private final KernelScheduler scheduler;
    private final PersistenceTemplates templates;
    private final LongSupplier clockMillis;
    private final LongSupplier nanos;
    /** When the next ramp step is due (the nanos clock); {@link Long#MAX_VALUE} while nobody ramps: a pick then reads only this. */
    private volatile long nextRampStep = Long.MAX_VALUE;
    /** Servers in the order they were added (keepalived: config order). The kernel's list is the reverse. */
    private volatile List<Dest> addOrder = List.of();
    private volatile Dest sorry;
    /**
     * Removed servers, kept like the kernel's dest trash: re-adding the same address:port revives the same object,
     * so connections that outlived the removal are still counted against its thresholds.
     */
    private final java.util.Map<String, Dest> trash = new java.util.HashMap<>();

    public VirtualService(KernelScheduler scheduler, Persistence persistence, LongSupplier clockMillis) {
        this(scheduler, persistence, clockMillis, System::nanoTime);
    }

    /**
     * @param clockMillis wall clock for persistence templates
     * @param nanos       the clock slow start ramps are timed by ({@link #ramp}); tests and {@code fairway pick} fix it
     */
    public VirtualService(KernelScheduler scheduler, Persistence persistence, LongSupplier clockMillis,
                          LongSupplier nanos) {
        this.nanos = nanos;
        this.scheduler = scheduler;
        this.templates = persistence != null && persistence.enabled() ? new PersistenceTemplates(persistence) : null;
        this.clockMillis = clockMillis;
        scheduler.update(List.of());
    }

    public VirtualService(KernelScheduler scheduler) {
        this(scheduler, Persistence.NONE, System::currentTimeMillis);
    }

    public KernelScheduler scheduler() { return scheduler; }

    /** The real servers in the order they were added. */
    public List<Dest> dests() { return addOrder; }

    /** The sorry server, or null. */
    public Dest sorryServer() { return sorry; }

    /** Finds a real server (or the sorry server) by its printed name. */
    public Dest byName(String name) {
        for (Dest d : addOrder) if (d.name().equals(name)) return d;
        Dest s = sorry;
        return s != null && s.name().equals(name) ? s : null;
    }

    /** Adds a real server, like the kernel's NEW_DEST (it goes to the head of the kernel's list). */
    public synchronized Dest add(DestSpec spec) {
        if (find(spec.address(), spec.port()) != null) {
            throw new IllegalArgumentException("real_server " + spec.name() + " is listed twice");
        }
        checkNotSorry(spec, sorry);
        Dest d = revive(spec);
        List<Dest> next = new ArrayList<>(addOrder);
        next.add(d);
        publish(next);
        return d;
    }

    /** Changes weight/thresholds of an existing server (SET_DEST): counts are kept. */
    public synchronized Dest edit(DestSpec spec) {
        Dest d = find(spec.address(), spec.port());
        if (d == null) throw new IllegalArgumentException("no real_server " + spec.name());
        d.update(spec);
        publish(addOrder);
        return d;
    }

    /** Removes a server (DEL_DEST). Its connections go on; templates pointing at it become invalid. */
    public synchronized void remove(InetAddress address, int port) {
        Dest d = find(address, port);
        if (d == null) return;
        d.markRemoved();
        trash.put(key(d.address(), d.port()), d);
        List<Dest> next = new ArrayList<>(addOrder);
        next.remove(d);
        publish(next);
    }

    private static String key(InetAddress a, int port) {
        return a.getHostAddress() + "|" + port;
    }

    /** A new server, or the removed one with this address:port brought back with its live counts. */
    private Dest revive(DestSpec spec) {
        Dest old = trash.remove(key(spec.address(), spec.port()));
        if (old == null || old.totalConns() + old.persistConns() == 0) return new Dest(spec);
        old.revive(spec);
        return old;
    }

    /**
     * Makes the server list equal to {@code specs} with the fewest kernel-equivalent operations: servers that stay
     * keep their counts and list position, removed ones go, new ones are added in the given order.
     */
    public synchronized void reconcile(List<DestSpec> specs) {
        for (int i = 0; i < specs.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (specs.get(j).sameServer(specs.get(i).address(), specs.get(i).port())) {
                    throw new IllegalArgumentException("real_server " + specs.get(i).name() + " is listed twice");
                }
            }
            checkNotSorry(specs.get(i), sorry);
        }
        List<Dest> next = new ArrayList<>();
        for (Dest d : addOrder) {
            DestSpec s = specs.stream().filter(x -> x.sameServer(d.address(), d.port())).findFirst().orElse(null);
            if (s == null) {
                d.markRemoved();
                trash.put(key(d.address(), d.port()), d);
            } else {
                d.update(s);
                next.add(d);
            }
        }
        for (DestSpec s : specs) {
            if (next.stream().noneMatch(d -> s.sameServer(d.address(), d.port()))) next.add(revive(s));
        }
        publish(next);
    }

    /** Sets or clears ({@code null}) the sorry server. It must not also be a real server. */
    public synchronized Dest setSorryServer(DestSpec spec) {
        if (spec == null) {
            sorry = null;
            return null;
        }
        for (Dest d : addOrder) checkNotSorry(d.spec(), spec);
        Dest current = sorry;
        if (current != null && spec.sameServer(current.address(), current.port())) {
            current.update(spec);
            return current;
        }
        sorry = new Dest(spec);
        return sorry;
    }

    private static void checkNotSorry(DestSpec real, DestSpec sorrySpec) {
        if (sorrySpec != null && real.sameServer(sorrySpec.address(), sorrySpec.port())) {
            throw new IllegalArgumentException("sorry_server " + sorrySpec.name()
                    + " is also a real_server: it could never take overflow the real server cannot take");
        }
    }

    private static void checkNotSorry(DestSpec real, Dest sorryDest) {
        if (sorryDest != null) checkNotSorry(real, sorryDest.spec());
    }

    private Dest find(InetAddress address, int port) {
        for (Dest d : addOrder) if (d.address().equals(address) && d.port() == port) return d;
        return null;
    }

    /**
     * Slow start for one of this service's servers, in the scheduler itself: from now the server is {@code elapsed}
     * into a ramp of {@code duration} and takes that fraction of its share ({@link io.fairway.director.SlowStart}).
     * {@code duration <= 0}, or {@code elapsed >= duration}, ends a ramp. The hashing schedulers (sh, dh, mh) ignore
     * ramps: a ramp could only be applied to them by moving clients between servers (docs/schedulers.md).
     */
    public synchronized void ramp(Dest d, long elapsedNanos, long durationNanos) {
        long now = nanos.getAsLong();
        d.ramp(now - Math.max(0, elapsedNanos), durationNanos, now);
        publish(addOrder);
    }

    /** Moves every ramp to now: one volatile read while nobody ramps, a rebuild when a ramp enters its next step. */
    private void tickRamps() {
        long next = nextRampStep;
        if (next != Long.MAX_VALUE) {
            long now = nanos.getAsLong();
            if (now - next >= 0) refreshRamps(now);
        }
    }

    private synchronized void refreshRamps(long now) {
        if (now - nextRampStep < 0) return; // another pick moved them already
        boolean changed = false;
        for (Dest d : addOrder) changed |= d.refreshRamp(now);
        if (changed) {
            publish(addOrder);
        } else {
            nextRampStep = nextStep(addOrder, now);
        }
    }

    private static long nextStep(List<Dest> dests, long now) {
        long next = Long.MAX_VALUE;
        for (Dest d : dests) {
            long at = d.nextRampStep(now);
            if (at != Long.MAX_VALUE && (next == Long.MAX_VALUE || at - next < 0)) next = at;
        }
        return next;
    }

    private void publish(List<Dest> next) {
        boolean ramping = false;
        for (Dest d : next) ramping |= d.ramping();
        // While anybody ramps every weight is scaled by 100, so a weight-1 server can take 1% of its share.
        int scale = ramping ? io.fairway.director.SlowStart.STEPS : 1;
        for (Dest d : next) d.weightScale(scale);
        nextRampStep = ramping ? nextStep(next, nanos.getAsLong()) : Long.MAX_VALUE;
        addOrder = Collections.unmodifiableList(next);
        List<Dest> kernel = new ArrayList<>(next);
        Collections.reverse(kernel);
        scheduler.update(kernel);
    }

    /**
     * The server a new connection would get now, without counting it: the persistence template's server if the
     * client has a valid one, else the scheduler's choice, else the sorry server, else {@code null} (refused).
     */
    public Dest pick(Flow flow) {
        return pick(flow.client(), flow.clientFold(), flow.clientPort(), flow.destinationFold());
    }

    /** {@link #pick(Flow)} on precomputed folds ({@link KernelScheduler#fold}); allocates nothing without persistence. */
    public Dest pick(InetAddress client, int clientFold, int clientPort, int destinationFold) {
        tickRamps();
        if (templates != null && client != null) {
            PersistenceTemplates.Template t = templates.lookup(templates.key(client), clockMillis.getAsLong());
            if (t != null) return t.dest;
        }
        Dest d = scheduler.pick(clientFold, clientPort, destinationFold);
        return d != null ? d : overflow();
    }

    private Dest overflow() {
        Dest s = sorry;
        return s != null && !s.overloaded() ? s : null;
    }

    /** True when {@code d} is this service's sorry server. */
    public boolean isSorry(Dest d) {
        return d != null && d == sorry;
    }

    /**
     * Schedules and counts a new connection; null if refused. It counts as active from the first packet: since
     * Linux 4.8 the kernel counts the handshake states (SYN_SENT, SYN_RECV) as active, so a SYN flood shows up in lc.
     */
    public Connection open(Flow flow) {
        tickRamps();
        Dest.ConnKind kind = Dest.ConnKind.ACTIVE;
        long now = clockMillis.getAsLong();
        PersistenceTemplates.Template t = null;
        Dest d;
        if (templates != null) {
            PersistenceTemplates.Key key = templates.key(flow.client());
            t = templates.lookup(key, now);
            if (t != null) {
                d = t.dest;
            } else {
                d = scheduler.schedule(flow);
                if (d != null) t = templates.create(key, d, now);
            }
            if (t != null) templates.use(t, now);
        } else {
            d = scheduler.schedule(flow);
        }
        boolean toSorry = false;
        if (d == null) {
            d = overflow();
            if (d == null) return null;
            toSorry = true;
        }
        d.bind(kind);
        return new Connection(this, d, toSorry, kind, t);
    }

    void templateReleased(PersistenceTemplates.Template t) {
        templates.release(t, clockMillis.getAsLong());
    }

    /** Drops expired persistence templates; returns how many. */
    public int expireTemplates() {
        return templates == null ? 0 : templates.sweep(clockMillis.getAsLong());
    }

    /** Number of live persistence templates. */
    public int templateCount() {
        return templates == null ? 0 : templates.size();
    }
}

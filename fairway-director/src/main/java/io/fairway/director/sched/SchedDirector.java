package io.fairway.director.sched;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.Snapshot;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A kernel scheduler behind the common {@link io.fairway.director.Director} entry point, so the
 * data plane and {@code fairway pick} treat {@code lb_algo wlc} and Varnish's {@code shard} alike.
 *
 * <p>Mapping of the director model onto the kernel's: members are real servers in add order (their
 * backend is a {@link SchedServer}, or any backend named {@code IP:PORT}); the weight must be a
 * whole number (the kernel's is an int; 0 quiesces); a member that is down is <em>removed</em> from
 * the kernel's table, as keepalived does without {@code inhibit_on_failure} (with it, keepalived
 * sets weight 0 instead — do the same through {@link #setWeight}). Connection counts live in the
 * servers and survive every change.
 *
 * <p>When the scheduler finds nobody and a sorry server is set, {@link #choose} returns the sorry
 * server: see {@link SchedService} for the overflow rules.
 */
public final class SchedDirector extends AbstractDirector<SchedDirector.SchedState> {
  private final SchedService service;

  /**
   * Published state: the member snapshot (the servers themselves live in the {@link SchedService}).
   */
  public static final class SchedState extends AbstractDirector.State {
    SchedState(Snapshot s) {
      super(s);
    }
  }

  /**
   * @param name the director's (virtual server's) name
   * @param scheduler from {@link Schedulers#create}
   * @param persistence {@link Persistence#NONE} or the virtual server's persistence
   * @param clockMillis wall clock in milliseconds for persistence templates
   */
  public SchedDirector(
      String name, KernelScheduler scheduler, Persistence persistence, LongSupplier clockMillis) {
    super(name, scheduler.name(), null);
    this.service = new SchedService(scheduler, persistence, clockMillis);
    start();
  }

  public SchedDirector(String name, KernelScheduler scheduler) {
    this(name, scheduler, Persistence.NONE, System::currentTimeMillis);
  }

  /** The underlying service: counts, sorry server, persistence. */
  public SchedService service() {
    return service;
  }

  @Override
  protected SchedState derive(Snapshot snapshot, @Nullable SchedState previous) {
    List<DestSpec> specs = new ArrayList<>();
    java.util.Map<String, Backend> owners = new java.util.HashMap<>();
    for (int i = 0; i < snapshot.size(); i++) {
      if (!snapshot.up(i)) continue;
      Member m = snapshot.member(i);
      double w = m.weight();
      if (w != Math.rint(w) || w > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "weight of "
                + m.name()
                + " must be a whole number for lb_algo "
                + algorithm()
                + ", got "
                + w);
      }
      SchedServer rs = m.backend() instanceof SchedServer r ? r : parse(m.backend());
      specs.add(rs.spec((int) w).withName(m.name()));
      owners.put(m.name(), m.backend());
    }
    service.reconcile(specs);
    List<SchedDest> dests = service.dests();
    for (SchedDest d : dests) d.backend(owners.get(d.name()));
    return new SchedState(snapshot);
  }

  private SchedServer parse(Backend b) {
    try {
      return new SchedServer(b.name(), Flows.parseHostPort(b.name(), "real server"), 0, 0);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "lb_algo "
              + algorithm()
              + " needs real server addresses: '"
              + b.name()
              + "' is not IP:PORT");
    }
  }

  /** Sets (or clears, with null) the sorry server that takes new connections nobody else can. */
  public void setSorryServer(@Nullable SchedServer sorry) {
    SchedDest d = service.setSorryServer(sorry == null ? null : sorry.spec(1));
    if (d != null) d.backend(sorry);
  }

  @Override
  public boolean healthy() {
    return super.healthy() || service.sorryServer() != null;
  }

  @Override
  public @Nullable Backend choose(Request request) {
    InetSocketAddress c = request.client();
    InetSocketAddress d = request.destination();
    SchedDest dest =
        service.pick(
            c == null ? null : c.getAddress(),
            c == null || c.getAddress() == null ? 0 : KernelScheduler.fold(c.getAddress()),
            c == null ? 0 : c.getPort(),
            d == null || d.getAddress() == null ? 0 : KernelScheduler.fold(d.getAddress()));
    return dest == null ? null : dest.backend();
  }

  /** Schedules and counts a new connection (the data plane's entry point); null when refused. */
  public @Nullable Connection open(Request request) {
    InetSocketAddress c = request.client();
    InetSocketAddress d = request.destination();
    if (c == null)
      throw new IllegalArgumentException("a kernel scheduler needs the client address");
    return service.open(
        new Flow(
            c.getAddress(),
            c.getPort(),
            d == null ? null : d.getAddress(),
            d == null ? 0 : d.getPort()));
  }
}

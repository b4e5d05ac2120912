package io.fairway.apply;

import static io.fairway.apply.Fixtures.SORRY;
import static io.fairway.apply.Fixtures.WEB;
import static io.fairway.apply.Fixtures.WEB_SVC;
import static io.fairway.apply.Fixtures.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Protocol;
import io.fairway.table.Ramp;
import io.fairway.table.RampTarget;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import io.fairway.table.TableOp;
import io.fairway.testkit.RecordingTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Verdicts that arrive together are published together ({@link Applier#coalesceVerdicts}), and
 * nothing else changes: the same table operations in the same order, each refused when it is made,
 * the same events, the same end state as one verdict published at a time.
 */
class VerdictCoalescingTest {
  /** What a random step can set an operator's state to. */
  private static final List<AdminState> ADMIN_STATES =
      List.of(AdminState.NONE, AdminState.DRAIN, AdminState.MAINT);

  static final ServiceKey TLS = ServiceKey.of(Protocol.TCP, ip("10.16.0.1"), 443);

  /** The daemon's timer, run by hand. */
  static final class ManualLater implements Later {
    final List<Runnable> tasks = new ArrayList<>();
    final List<Duration> delays = new ArrayList<>();

    @Override
    public void after(Duration delay, Runnable task) {
      delays.add(delay);
      tasks.add(task);
    }

    void runAll() {
      List<Runnable> due = List.copyOf(tasks);
      tasks.clear();
      due.forEach(Runnable::run);
    }
  }

  /** A virtual server with two services (80 and 443) and {@code n} real servers. */
  static ServiceBinding pool(int n) {
    List<ServerBinding> servers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      servers.add(Fixtures.rs("s" + i, "10.16." + (1 + i / 250) + "." + (1 + i % 250), 1));
    }
    return new ServiceBinding(
        "web",
        List.of(WEB_SVC, Service.of(TLS, "rr")),
        ServiceBinding.byName(servers),
        null,
        false,
        List.of());
  }

  static Set<String> names(int n) {
    Set<String> s = new HashSet<>();
    for (int i = 0; i < n; i++) {
      s.add("s" + i);
    }
    return s;
  }

  @Test
  void aBurstOfVerdictsIsOnePublicationPerServiceWithTheSameOperations() throws Exception {
    int n = 300;
    RecordingTable one = new RecordingTable();
    RecordingTable held = new RecordingTable();
    one.holds = true;
    held.holds = true;
    Applier single = new Applier(one, Fixtures.config(pool(n)));
    Applier batched = new Applier(held, Fixtures.config(pool(n)));
    ManualLater later = new ManualLater();
    batched.coalesceVerdicts(later);
    single.init("web", new InitialState(names(n), true));
    batched.init("web", new InitialState(names(n), true));
    one.publications.clear();
    held.publications.clear();

    for (int i = 1; i < n; i++) {
      single.setAlive("web", "s" + i, false);
      batched.setAlive("web", "s" + i, false);
    }

    assertThat(one.publications).as("one by one: every call publishes").hasSize(2 * (n - 1));
    assertThat(held.publications).as("held: nothing published yet").isEmpty();
    assertThat(later.tasks).as("one release for the burst").hasSize(1);
    later.runAll();
    assertThat(held.publications).containsExactly(WEB, TLS);
    assertThat(held.ops).as("the same operations, in order").isEqualTo(one.ops);
    assertThat(held.dests).isEqualTo(one.dests);
    assertThat(held.dests.get(WEB)).hasSize(1);
    assertThat(batched.holding()).isFalse();

    // The next verdict opens the next window.
    batched.setAlive("web", "s1", true);
    assertThat(later.tasks).hasSize(1);
    later.runAll();
    assertThat(held.publications).containsExactly(WEB, TLS, WEB, TLS);
  }

  @Test
  void theKernelsTableIsNotHeld() throws Exception {
    RecordingTable kernel = new RecordingTable(); // holds nothing back
    Applier a = new Applier(kernel, Fixtures.config(pool(3)));
    ManualLater later = new ManualLater();
    a.coalesceVerdicts(later);
    a.init("web", new InitialState(names(3), true));
    kernel.publications.clear();

    a.setAlive("web", "s1", false);

    assertThat(later.tasks).isEmpty();
    assertThat(a.holding()).isFalse();
    assertThat(kernel.publications).containsExactly(WEB, TLS);
  }

  @Test
  void aRefusedVerdictIsRefusedWhenItIsMadeAndRetriedLater() throws Exception {
    RecordingTable table = new RecordingTable();
    table.holds = true;
    Applier a = new Applier(table, Fixtures.config(pool(3)));
    ManualLater later = new ManualLater();
    a.coalesceVerdicts(later);
    a.init("web", new InitialState(names(3), true));
    Dest s2 = Dest.of(ip("10.16.1.3"), 80, 1);
    table.refuse = op -> op instanceof TableOp.DelDest d && d.dest().equals(s2.key());

    a.setAlive("web", "s1", false);
    assertThatThrownBy(() -> a.setAlive("web", "s2", false))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("refused");

    assertThat(a.alive("web", "s2")).as("not recorded: the engine retries it").isTrue();
    assertThat(a.alive("web", "s1")).isFalse();
    later.runAll();
    table.refuse = op -> false;
    a.setAlive("web", "s2", false);
    later.runAll();
    assertThat(table.dests.get(WEB)).containsOnlyKeys(Fixtures.key("10.16.1.1"));
  }

  @Test
  void anOperatorsActionIsPublishedBeforeItReturns() throws Exception {
    RecordingTable table = new RecordingTable();
    table.holds = true;
    Applier a = new Applier(table, Fixtures.config(pool(3)));
    ManualLater later = new ManualLater();
    a.coalesceVerdicts(later);
    AdminApplier admin = new AdminApplier(a, Map.of(), e -> {});
    admin.init("web", new InitialState(names(3), true));
    table.publications.clear();

    admin.setAlive("web", "s1", false);
    assertThat(table.held()).isTrue();
    admin.setState("web", "s2", AdminState.DRAIN);

    assertThat(table.held()).isFalse();
    assertThat(table.publications).containsExactly(WEB, TLS);
    assertThat(table.weight(WEB, Fixtures.key("10.16.1.3"))).isZero();
  }

  @Test
  void whatIsNotAVerdictPublishesTheHeldOnesFirst() throws Exception {
    RecordingTable table = new RecordingTable();
    table.holds = true;
    Applier a = new Applier(table, Fixtures.config(pool(3)));
    a.coalesceVerdicts(new ManualLater());
    a.init("web", new InitialState(names(3), true));

    a.setAlive("web", "s1", false);
    assertThat(a.holding()).isTrue();
    a.repairDrift();
    assertThat(a.holding()).isFalse();

    a.setAlive("web", "s1", true);
    a.removeAll();
    assertThat(a.holding()).isFalse();
    assertThat(table.services).isEmpty();
  }

  @Test
  void aTimerThatIsStoppingPublishesAtOnce() throws Exception {
    RecordingTable table = new RecordingTable();
    table.holds = true;
    Applier a = new Applier(table, Fixtures.config(pool(3)));
    a.coalesceVerdicts(
        (delay, task) -> {
          throw new java.util.concurrent.RejectedExecutionException("stopping");
        });
    a.init("web", new InitialState(names(3), true));
    table.publications.clear();

    a.setAlive("web", "s1", false);

    assertThat(a.holding()).isFalse();
    assertThat(table.publications).containsExactly(WEB, TLS);
  }

  @Test
  void theWindowIsTenTimesWhatPublishingCostsAtMostFiftyMilliseconds() {
    long[] now = {0};
    long[] cost = {3_000_000};
    RecordingTable publishing = new RecordingTable();
    publishing.holds = true;
    publishing.onRelease = () -> now[0] += cost[0];
    PublicationHold hold = new PublicationHold(publishing, () -> now[0]);
    ManualLater later = new ManualLater();
    hold.use(later);

    hold.join(hold::release);
    hold.join(hold::release); // joins the open one
    later.runAll();
    hold.join(hold::release);
    later.runAll();
    cost[0] = 20_000_000;
    hold.join(hold::release);
    later.runAll();
    hold.join(hold::release);

    assertThat(later.delays)
        .containsExactly(
            Duration.ZERO, Duration.ofMillis(30), Duration.ofMillis(30), PublicationHold.MAX_WAIT);
  }

  // --- nothing but a verdict is held, whichever method makes the change -----------------------

  /**
   * A holding table that notes each call made while a hold is on: outside a verdict there must be
   * none, whatever makes it. What it is told goes on to a {@link RecordingTable}.
   */
  static class WatchedTable implements Table {
    final RecordingTable inner = new RecordingTable();

    /** Calls that reached the table while it was held. */
    final List<String> whileHeld = new ArrayList<>();

    /** How many calls reached the table. */
    int calls;

    WatchedTable() {
      inner.holds = true;
    }

    void call(String what) {
      calls++;
      if (inner.held()) {
        whileHeld.add(what);
      }
    }

    @Override
    public void addService(Service s) throws TableException {
      call("add service " + s.key());
      inner.addService(s);
    }

    @Override
    public void setService(Service s) throws TableException {
      call("set service " + s.key());
      inner.setService(s);
    }

    @Override
    public void delService(ServiceKey key) throws TableException {
      call("del service " + key);
      inner.delService(key);
    }

    @Override
    public void addDest(ServiceKey s, Dest d) throws TableException {
      call("add dest " + d.key());
      inner.addDest(s, d);
    }

    @Override
    public void setDest(ServiceKey s, Dest d) throws TableException {
      call("set dest " + d.key());
      inner.setDest(s, d);
    }

    @Override
    public void delDest(ServiceKey s, DestKey d) throws TableException {
      call("del dest " + d);
      inner.delDest(s, d);
    }

    @Override
    public List<TableException> apply(List<TableOp> ops) {
      call("batch " + ops);
      return inner.apply(ops);
    }

    @Override
    public boolean hold() {
      return inner.hold();
    }

    @Override
    public void release() {
      inner.release();
    }

    @Override
    public List<ServiceEntry> list() {
      call("list");
      return inner.list();
    }

    @Override
    public void flush() {
      call("flush");
      inner.flush();
    }
  }

  /** The same, ramping in its scheduler as the userspace proxy does. */
  static final class WatchedRampingTable extends WatchedTable implements RampTarget {
    @Override
    public void ramp(ServiceKey s, DestKey d, Ramp r) {
      call("ramp " + d);
    }
  }

  interface TableCall {
    void run(TolerantTable t) throws TableException;
  }

  /**
   * The rule is in the mechanism, not in the applier's methods: each kind of call that reaches the
   * table through {@link TolerantTable} outside a verdict publishes what is held before it is made,
   * so a method added later cannot leave its change held behind a verdict's window.
   */
  @Test
  void everyTableCallOutsideAVerdictPublishesWhatIsHeldFirst() throws Exception {
    Dest s1 = Dest.of(ip("10.16.1.1"), 80, 1);
    Map<String, TableCall> calls = new LinkedHashMap<>();
    calls.put("add service", t -> t.addService(Service.of(TLS, "rr")));
    calls.put("set service", t -> t.setService(Service.of(WEB, "wrr")));
    calls.put("del service", t -> t.delService(WEB));
    calls.put("add dest", t -> t.addDest(WEB, Dest.of(ip("10.16.1.2"), 80, 1)));
    calls.put("set dest", t -> t.setDest(WEB, s1.withWeight(5)));
    calls.put("del dest", t -> t.delDest(WEB, s1.key()));
    calls.put(
        "batch",
        t -> {
          t.begin();
          try {
            t.setDest(WEB, s1.withWeight(2));
          } finally {
            t.commit();
          }
        });
    calls.put("ramp", t -> t.ramp(WEB, s1.key(), Ramp.NONE));
    calls.put("flush", TolerantTable::flush);
    calls.put("read to change", t -> t.listToChange());
    for (Map.Entry<String, TableCall> c : calls.entrySet()) {
      WatchedRampingTable table = new WatchedRampingTable();
      PublicationHold hold = new PublicationHold(table, () -> 0);
      ManualLater later = new ManualLater();
      hold.use(later);
      TolerantTable t = new TolerantTable(table, hold);
      t.addService(WEB_SVC);
      t.addDest(WEB, s1);
      table.inner.publications.clear();
      hold.verdict(hold::release, () -> t.setDest(WEB, s1.withWeight(3)));
      assertThat(table.inner.held()).as("the verdict is held").isTrue();
      assertThat(later.tasks).hasSize(1);
      table.whileHeld.clear();
      int before = table.calls;

      c.getValue().run(t);

      assertThat(table.calls).as(c.getKey() + " reaches the table").isGreaterThan(before);
      assertThat(table.whileHeld).as(c.getKey() + ", made while a verdict is held").isEmpty();
      assertThat(table.inner.publications)
          .as(c.getKey() + ": the verdict is published first")
          .startsWith(WEB);
    }
  }

  /** One of the applier's methods that is not a verdict, and what it needs done beforehand. */
  record NonVerdict(String name, Rig.Step before, Rig.Step call) {}

  /** An applier on a watched table, with a clock and a timer run by hand. */
  static final class Rig {
    interface Step {
      void run(Rig r) throws Exception;
    }

    final WatchedTable table;
    final long[] now = {1_000_000_000L};
    final ManualLater later = new ManualLater();
    final Applier applier;

    Rig(WatchedTable table, Map<String, ServiceBinding> config) {
      this.table = table;
      applier = new Applier(table, config, () -> now[0]);
      applier.coalesceVerdicts(later);
    }
  }

  /** web: a (weight 4, slow start 4 s), b, c (inhibit, at {@code cWeight}), overflow to sorry. */
  static ServiceBinding web(int cWeight) {
    return new ServiceBinding(
            "web",
            List.of(WEB_SVC),
            ServiceBinding.byName(
                List.of(
                    new ServerBinding(
                        "a", Dest.of(ip("10.16.1.1"), 80, 4), false, 4, Duration.ofSeconds(4)),
                    Fixtures.rs("b", "10.16.1.2", 1),
                    Fixtures.inhibit("c", "10.16.1.3", cWeight))),
            null,
            false,
            List.of())
        .withSorryServer(SORRY, false)
        .withOverflow(true);
  }

  /**
   * Each of the applier's methods that is not a verdict, called while a verdict's change is held:
   * none of its calls reaches the table under the hold, the verdict is published before it, and
   * nothing is held when it returns.
   */
  @Test
  void noApplierMethodThatIsNotAVerdictIsHeld() throws Exception {
    ServiceBinding api =
        ServiceBinding.of("api", Service.of(TLS, "rr"), List.of(Fixtures.rs("d", "10.16.2.1", 1)));
    Map<String, ServiceBinding> reloaded = Fixtures.config(web(5), api);
    Rig.Step nothing = r -> {};
    List<NonVerdict> methods =
        List.of(
            new NonVerdict("init", nothing, r -> r.applier.init("api", Fixtures.up("d"))),
            new NonVerdict("reload", nothing, r -> r.applier.replace(reloaded)),
            new NonVerdict(
                "all-or-nothing reload", nothing, r -> r.applier.replaceOrRestore(reloaded)),
            new NonVerdict(
                "slow start (an operator's ready)",
                nothing,
                r -> r.applier.startSlowStart("web", "a")),
            new NonVerdict(
                "slow start step",
                r -> {
                  r.applier.startSlowStart("web", "a");
                  r.now[0] += 1_500_000_000L;
                },
                r -> assertThat(r.applier.stepSlowStarts()).isEqualTo(1)),
            new NonVerdict(
                "overflow",
                nothing,
                r -> assertThat(r.applier.overflow("web", WEB, true)).isTrue()),
            new NonVerdict(
                "drift repair",
                r -> r.table.inner.delDest(WEB, Fixtures.key("10.16.1.1")),
                r -> assertThat(r.applier.repairDrift()).hasSize(1)),
            new NonVerdict("remove all", nothing, r -> r.applier.removeAll()),
            new NonVerdict("remove services", nothing, r -> r.applier.removeServices()),
            new NonVerdict("flush", nothing, r -> assertThat(r.applier.flushTable()).isTrue()));
    for (NonVerdict m : methods) {
      notHeld(m.name(), m, new Rig(new WatchedTable(), Fixtures.config(web(2), api)));
    }
    // A table that ramps in its scheduler is handed the ramp first, before any weight.
    notHeld(
        "slow start on a ramping table",
        methods.get(3),
        new Rig(new WatchedRampingTable(), Fixtures.config(web(2), api)));
  }

  private static void notHeld(String what, NonVerdict m, Rig r) throws Exception {
    r.applier.init("web", Fixtures.up("a", "b", "c"));
    m.before().run(r);
    r.later.runAll();
    r.table.inner.publications.clear();
    r.applier.setAlive("web", "b", false);
    assertThat(r.applier.holding()).as(what + ": the verdict is held").isTrue();
    r.table.whileHeld.clear();
    int before = r.table.calls;

    m.call().run(r);

    assertThat(r.table.calls).as(what + " reaches the table").isGreaterThan(before);
    assertThat(r.table.whileHeld).as(what + ", made while a verdict is held").isEmpty();
    assertThat(r.table.inner.publications).as(what + ": the verdict first").startsWith(WEB);
    assertThat(r.table.inner.held()).as(what + ": nothing left held").isFalse();
    assertThat(r.applier.holding()).isFalse();
  }

  // --- batched against one by one, over random sequences --------------------------------------

  /** One step: what, on which server, with what value. */
  record Step(int kind, int server, int value) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 10),
            Arbitraries.integers().between(0, 4),
            Arbitraries.integers().between(-1, 5))
        .as(Step::new)
        .list()
        .ofMaxSize(60);
  }

  /** One side of the comparison: a table, the applier, the admin layer, what came out of it. */
  static final class Side {
    final RecordingTable table = new RecordingTable();
    final long[] now = {1_000_000_000L};
    final Applier applier;
    final AdminApplier admin;
    final ManualLater later = new ManualLater();
    final List<AdminEvent> events = new ArrayList<>();
    final List<String> outcomes = new ArrayList<>();

    Side(ServiceBinding vs, boolean coalesce) {
      table.holds = true;
      LongSupplier nanos = () -> now[0];
      applier = new Applier(table, Fixtures.config(vs), nanos);
      if (coalesce) {
        applier.coalesceVerdicts(later);
      }
      admin = new AdminApplier(applier, rules, events::add);
    }

    void run(String what, Call c) {
      try {
        c.run();
        outcomes.add(what + ": ok");
      } catch (TableException | UnknownServerException e) {
        outcomes.add(what + ": " + e.getMessage());
      }
    }
  }

  interface Call {
    void run() throws TableException, UnknownServerException;
  }

  static final Map<String, QuorumRule> rules = Map.of("web", new QuorumRule(3, 1));

  /** The configuration with one real server's configured weight changed (a reload). */
  static Map<String, ServiceBinding> reweighed(
      Map<String, ServiceBinding> config, String rsName, int weight) {
    ServiceBinding vs = config.get("web");
    List<ServerBinding> servers = new ArrayList<>();
    for (ServerBinding r : vs.servers().values()) {
      int w = r.name().equals(rsName) ? Math.max(0, weight) : r.weight();
      servers.add(
          new ServerBinding(r.name(), r.dest().withWeight(w), r.inhibit(), w, r.slowStart()));
    }
    return Fixtures.config(
        new ServiceBinding(
            vs.name(),
            vs.services(),
            ServiceBinding.byName(servers),
            vs.sorryServer(),
            vs.sorryServerInhibit(),
            vs.trackedFiles(),
            vs.overflow()));
  }

  @Property(tries = 400)
  void coalescedVerdictsEndWhereOneAtATimeEnds(
      @ForAll("steps") List<Step> steps, @ForAll boolean sorryInhibit, @ForAll boolean startUp)
      throws Exception {
    List<ServerBinding> servers =
        List.of(
            Fixtures.rs("a", "10.16.1.1", 1),
            Fixtures.inhibit("b", "10.16.1.2", 2),
            new ServerBinding(
                "c", Dest.of(ip("10.16.1.3"), 80, 3), false, 3, Duration.ofSeconds(4)),
            Fixtures.inhibit("d", "10.16.1.4", 1),
            Fixtures.rs("e", "10.16.1.5", 2));
    ServiceBinding vs =
        new ServiceBinding(
                "web",
                List.of(WEB_SVC, Service.of(TLS, "wrr")),
                ServiceBinding.byName(servers),
                null,
                false,
                List.of())
            .withSorryServer(SORRY, sorryInhibit);
    Side single = new Side(vs, false);
    Side batched = new Side(vs, true);
    Set<String> alive = startUp ? Set.of("a", "b", "c") : Set.of();
    for (Side s : List.of(single, batched)) {
      s.admin.init("web", new InitialState(alive, startUp));
    }
    Set<String> refused = new HashSet<>();
    for (Step st : steps) {
      String name = servers.get(st.server()).name();
      DestKeyMatcher refuse = new DestKeyMatcher(servers, refused);
      for (Side s : List.of(single, batched)) {
        s.table.refuse = refuse::matches;
        int published = s.table.publications.size();
        int ops = s.table.ops.size();
        boolean verdict = st.kind() <= 3;
        switch (st.kind()) {
          case 0 -> s.run("up " + name, () -> s.admin.setAlive("web", name, true));
          case 1 -> s.run("down " + name, () -> s.admin.setAlive("web", name, false));
          case 2 -> s.run("weight " + name, () -> s.admin.setWeight("web", name, st.value() * 2L));
          case 3 -> s.run("quorum", () -> s.admin.quorum("web", st.value() > 1));
          case 4 ->
              s.run(
                  "admin " + name,
                  () ->
                      s.admin.setState(
                          "web",
                          name,
                          ADMIN_STATES.get(Math.floorMod(st.value(), ADMIN_STATES.size()))));
          case 5 -> s.later.runAll(); // the timer releases the hold
          case 6 -> s.run("step", () -> s.applier.stepSlowStarts());
          case 7 -> s.now[0] += 700_000_000L; // ramps move
          case 8 -> s.run("repair", () -> s.applier.repairDrift());
          case 10 ->
              s.run(
                  "reload " + name,
                  () -> s.admin.replace(reweighed(s.applier.config(), name, st.value()), rules));
          default -> {} // the refusals change below, once for both sides
        }
        if (verdict && s == batched) {
          assertThat(s.table.publications.size())
              .as("a verdict publishes nothing while it is held")
              .isEqualTo(published);
        }
        if (!verdict && s.table.ops.size() > ops) {
          assertThat(s.table.held()).as("what is not a verdict is not held").isFalse();
        }
      }
      if (st.kind() == 9) {
        // The table starts or stops refusing this server's destinations (both sides).
        if (!refused.remove(name)) {
          refused.add(name);
        }
      }
    }
    batched.later.runAll();
    assertThat(batched.outcomes).isEqualTo(single.outcomes);
    assertThat(batched.events).isEqualTo(single.events);
    assertThat(batched.table.ops).isEqualTo(single.table.ops);
    assertThat(batched.table.dests).isEqualTo(single.table.dests);
    assertThat(batched.applier.status()).isEqualTo(single.applier.status());
    assertThat(batched.applier.desired()).isEqualTo(single.applier.desired());
    assertThat(batched.table.held()).isFalse();
    // Each release publishes a service at most once.
    assertThat(batched.table.publications.size())
        .isLessThanOrEqualTo(single.table.publications.size());
  }

  /** Refuses every operation on the destinations of the named servers. */
  record DestKeyMatcher(List<ServerBinding> servers, Set<String> names) {
    DestKeyMatcher {
      names = Set.copyOf(names);
    }

    boolean matches(TableOp op) {
      Map<io.fairway.table.DestKey, String> byKey = new LinkedHashMap<>();
      servers.forEach(r -> byKey.put(r.dest().key(), r.name()));
      io.fairway.table.DestKey k = null;
      if (op instanceof TableOp.AddDest o) {
        k = o.dest().key();
      } else if (op instanceof TableOp.SetDest o) {
        k = o.dest().key();
      } else if (op instanceof TableOp.DelDest o) {
        k = o.dest();
      }
      String name = k == null ? null : byKey.get(k);
      return name != null && names.contains(name);
    }
  }
}

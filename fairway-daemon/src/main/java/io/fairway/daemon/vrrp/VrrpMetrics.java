package io.fairway.daemon.vrrp;

import io.fairway.vrrp.state.State;
import io.fairway.vrrp.view.DropKind;
import io.fairway.vrrp.view.GroupStatus;
import io.fairway.vrrp.view.InstanceStatus;
import io.fairway.vrrp.view.VrrpSnapshot;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The {@code fairway_vrrp_*} metrics, read from the speaker's snapshot at scrape time: per instance
 * its state (one series per state, 1 for the current one), effective priority, since when,
 * transitions by the state entered, adverts sent and received; per sync group its state; packets
 * received and errors by kind. Labels are configured names and fixed enums only.
 */
public final class VrrpMetrics {
  private static final String INSTANCE = "instance";

  private VrrpMetrics() {}

  /**
   * Registers the VRRP metrics.
   *
   * @param snapshot the running speaker's, {@link VrrpSnapshot#empty} when none runs
   */
  public static void register(PrometheusRegistry registry, Supplier<VrrpSnapshot> snapshot) {
    instanceState(registry, snapshot);
    instanceCounters(registry, snapshot);
    speakerMetrics(registry, snapshot);
  }

  /** Per instance: its state, priority and since when. */
  private static void instanceState(PrometheusRegistry registry, Supplier<VrrpSnapshot> snapshot) {
    GaugeWithCallback.builder()
        .name("fairway_vrrp_state")
        .help(
            "1 for the VRRP instance's current state (init, backup, master, fault, stop), 0 for the others")
        .labelNames(INSTANCE, "state")
        .callback(
            cb -> {
              for (InstanceStatus i : snapshot.get().instances()) {
                for (State s : State.values()) {
                  cb.call(i.state() == s ? 1 : 0, i.name(), VrrpJson.wire(s));
                }
              }
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("fairway_vrrp_priority")
        .help("The VRRP instance's effective priority (configured priority plus tracking weights)")
        .labelNames(INSTANCE)
        .callback(cb -> snapshot.get().instances().forEach(i -> cb.call(i.priority(), i.name())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("fairway_vrrp_state_since_timestamp_seconds")
        .help("When the VRRP instance entered its current state, Unix time")
        .labelNames(INSTANCE)
        .callback(
            cb ->
                snapshot
                    .get()
                    .instances()
                    .forEach(i -> cb.call(i.since().toEpochMilli() / 1000.0, i.name())))
        .register(registry);
  }

  /** Per instance: transitions by the state entered, adverts sent and received. */
  private static void instanceCounters(
      PrometheusRegistry registry, Supplier<VrrpSnapshot> snapshot) {
    CounterWithCallback.builder()
        .name("fairway_vrrp_transitions")
        .help("VRRP state changes by the state entered")
        .labelNames(INSTANCE, "to")
        .callback(
            cb -> {
              for (InstanceStatus i : snapshot.get().instances()) {
                for (State s : new State[] {State.BACKUP, State.MASTER, State.FAULT, State.STOP}) {
                  cb.call(i.transitions().getOrDefault(s, 0L), i.name(), VrrpJson.wire(s));
                }
              }
            })
        .register(registry);
    CounterWithCallback.builder()
        .name("fairway_vrrp_adverts_sent")
        .help("VRRP adverts the instance sent (priority 0 hand-overs included)")
        .labelNames(INSTANCE)
        .callback(
            cb ->
                snapshot
                    .get()
                    .instances()
                    .forEach(i -> cb.call((double) i.advertsSent(), i.name())))
        .register(registry);
    CounterWithCallback.builder()
        .name("fairway_vrrp_adverts_received")
        .help("VRRP adverts for the instance that passed every check")
        .labelNames(INSTANCE)
        .callback(
            cb ->
                snapshot
                    .get()
                    .instances()
                    .forEach(i -> cb.call((double) i.advertsReceived(), i.name())))
        .register(registry);
  }

  /** Per sync group its state; the sockets' packets and errors. */
  private static void speakerMetrics(PrometheusRegistry registry, Supplier<VrrpSnapshot> snapshot) {
    GaugeWithCallback.builder()
        .name("fairway_vrrp_sync_group_state")
        .help("1 for the vrrp_sync_group's current state, 0 for the others")
        .labelNames("sync_group", "state")
        .callback(
            cb -> {
              for (GroupStatus g : snapshot.get().groups()) {
                for (State s : State.values()) {
                  cb.call(g.state() == s ? 1 : 0, g.name(), VrrpJson.wire(s));
                }
              }
            })
        .register(registry);
    CounterWithCallback.builder()
        .name("fairway_vrrp_packets_received")
        .help("Packets the VRRP sockets received, before any check")
        .callback(cb -> cb.call((double) snapshot.get().packetsReceived()))
        .register(registry);
    CounterWithCallback.builder()
        .name("fairway_vrrp_errors")
        .help(
            "VRRP packets dropped and operations failed, by kind (checksum, ttl, auth, addresses, send, ...)")
        .labelNames("kind")
        .callback(
            cb -> {
              VrrpSnapshot s = snapshot.get();
              for (DropKind k : DropKind.values()) {
                cb.call(
                    Objects.requireNonNull(s.errors().get(k), "a snapshot has every kind"),
                    k.wire());
              }
            })
        .register(registry);
  }
}

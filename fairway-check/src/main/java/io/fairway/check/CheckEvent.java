package io.fairway.check;

/**
 * A verdict published by the check engine. Every event names its virtual server by the stable name
 * given in {@link io.fairway.check.spec.VirtualServerSpec#name()}; server events also name the real
 * server by {@link io.fairway.check.spec.RealServerSpec#name()}.
 *
 * <p>Events for one virtual server are delivered in the order they happened and never concurrently,
 * so a consumer may keep per-virtual-server state without locking.
 */
public sealed interface CheckEvent permits ServerStateChanged, WeightChanged, QuorumChanged {
  /** The virtual server this event belongs to. */
  String virtualServer();
}

package io.fairway.director.sched;

import org.jspecify.annotations.Nullable;

/**
 * One scheduled connection, as the data plane reports its life: {@link #established()} when the
 * handshake completes, {@link #closing()} on FIN or reset, {@link #expire()} when it is gone. The
 * counts move exactly as the kernel's TCP state machine moves them (ip_vs_proto_tcp.c {@code
 * tcp_state_active}): a connection is <em>active</em> from its first packet through the handshake
 * and while established, <em>inactive</em> once it is closing (FIN, RST, TIME_WAIT) until it
 * expires. A UDP connection has no states: the kernel binds every new connection with the
 * destination's IP_VS_CONN_F_INACTIVE flag and only TCP and SCTP transitions clear it, so a UDP
 * connection is inactive for its whole life ({@link #closing()} right after {@code open}).
 *
 * <p>Expiry decrements the server's count and may clear its OVERLOAD flag (lower threshold, or the
 * 3/4 rule), so the next new connection can leave the sorry server and return to the pool.
 */
public final class Connection {
  private final SchedService service;
  private final SchedDest dest;
  private final boolean sorry;
  private final PersistenceTemplates.@Nullable Template template;
  private SchedDest.ConnKind kind;
  private boolean expired;

  Connection(
      SchedService service,
      SchedDest dest,
      boolean sorry,
      SchedDest.ConnKind kind,
      PersistenceTemplates.@Nullable Template template) {
    this.service = service;
    this.dest = dest;
    this.sorry = sorry;
    this.kind = kind;
    this.template = template;
  }

  /** The server this connection was sent to. */
  public SchedDest dest() {
    return dest;
  }

  /**
   * True when every real server was overloaded or quiesced and the connection overflowed to the
   * sorry server.
   */
  public boolean toSorryServer() {
    return sorry;
  }

  /**
   * TCP handshake completed (or data seen again after a half-close): the connection counts as
   * active.
   */
  public synchronized void established() {
    if (expired) return;
    dest.move(kind, SchedDest.ConnKind.ACTIVE);
    kind = SchedDest.ConnKind.ACTIVE;
  }

  /** FIN or RST seen: the connection still exists but counts as inactive until it expires. */
  public synchronized void closing() {
    if (expired) return;
    dest.move(kind, SchedDest.ConnKind.INACTIVE);
    kind = SchedDest.ConnKind.INACTIVE;
  }

  /** The connection is gone. Idempotent. */
  public synchronized void expire() {
    if (expired) return;
    expired = true;
    dest.unbind(kind);
    if (template != null) service.templateReleased(template);
  }

  public synchronized boolean isActive() {
    return !expired && kind == SchedDest.ConnKind.ACTIVE;
  }

  /**
   * Hands this closing connection's expiry to a batch: it counts as expired for this object from
   * now on, and the caller owes its destination one {@link SchedDest#expireInactive(int)} when the
   * connection's time is up. Refused (false, nothing changes) for a connection that is not inactive
   * or that holds a persistence template, whose release must happen one by one.
   */
  public synchronized boolean detachForBatchExpiry() {
    if (expired || template != null || kind != SchedDest.ConnKind.INACTIVE) return false;
    expired = true;
    return true;
  }
}

package io.fairway.proxy.udp;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.RateLimitedLog;
import io.fairway.proxy.table.Lease;
import io.fairway.proxy.table.ProxyService;
import io.fairway.table.ServiceFlag;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A UDP virtual service: one socket on the virtual address takes every client's datagrams, and each
 * client address and port becomes a {@link UdpFlow} to the server its first datagram was scheduled
 * to. The server's answers leave through the virtual address's socket, so the client sees them come
 * from where it sent its request.
 *
 * <p>Why flows, as in the kernel: IPVS schedules UDP per "connection" (client address and port) and
 * keeps it for the {@code udp} timeout after its last datagram, so a DNS client that retries
 * reaches the same server, persistence templates work, and lc/wlc and the thresholds count UDP
 * connections (as inactive ones, for their whole life). With {@code ops} (one-packet scheduling)
 * every datagram is scheduled on its own; its flow lives only until the server's first answer, or
 * the connect timeout when none comes, which is what request/response protocols such as DNS and
 * RADIUS want from it.
 *
 * <p>Nothing is queued behind a full socket buffer: a datagram that cannot be sent at once is
 * dropped, as the network would drop it, and the sender's own retries take over.
 *
 * <p>Confined to the listener's event loop: the flow table needs no locks, and the flows'
 * server-side sockets run on the same loop.
 */
public final class UdpRelay extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(UdpRelay.class);

  /** Largest UDP payload over IPv4 and IPv6 without jumbograms; reads are sized to it. */
  public static final int MAX_DATAGRAM = 65535;

  /** Dropped datagrams: each kind once per 10 s per service, with counts. */
  private static final RateLimitedLog warnings =
      new RateLimitedLog(log, java.time.Duration.ofSeconds(10));

  private final ProxyService vs;
  private final ProxyOptions options;
  private final AtomicInteger flowsInTable;
  private final Map<InetSocketAddress, UdpFlow> flows = new HashMap<>();
  private final List<UdpFlow> oneShots = new ArrayList<>();
  private @Nullable Channel front;
  private @Nullable ScheduledFuture<?> sweeper;

  /**
   * @param flowsInTable flows of every UDP service of the table, bounded by {@link
   *     ProxyOptions#maxUdpFlows()}
   */
  public UdpRelay(ProxyService vs, ProxyOptions options, AtomicInteger flowsInTable) {
    this.vs = vs;
    this.options = options;
    this.flowsInTable = flowsInTable;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    front = ctx.channel();
    long tick = Math.max(50, Math.min(1000, options.udpTimeout().toMillis() / 4));
    sweeper = ctx.executor().scheduleAtFixedRate(this::sweep, tick, tick, TimeUnit.MILLISECONDS);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    DatagramPacket p = (DatagramPacket) msg;
    InetSocketAddress client = p.sender();
    boolean oneShot = vs.service().flags().contains(ServiceFlag.ONE_PACKET);
    UdpFlow f = oneShot ? null : flows.get(client);
    if (f == null) {
      f = open(client, oneShot);
      if (f == null) {
        p.release();
        return;
      }
    }
    f.toServer(p.content());
  }

  private @Nullable UdpFlow open(InetSocketAddress client, boolean oneShot) {
    if (flowsInTable.get() >= options.maxUdpFlows()) {
      drop("UDP flows at maxUdpFlows; dropped a datagram from a new client", client);
      return null;
    }
    Lease lease = vs.select(client, null, Set.of());
    if (lease == null) {
      drop("no destination available; dropped a datagram", "from " + client);
      return null;
    }
    lease.toFlow();
    flowsInTable.incrementAndGet();
    UdpFlow f =
        new UdpFlow(
            this,
            Objects.requireNonNull(front, "a datagram arrives only after channelActive"),
            client,
            lease,
            oneShot);
    if (oneShot) {
      oneShots.add(f);
    } else {
      flows.put(client, f);
    }
    f.connect(options.connectTimeout());
    return f;
  }

  /** Called by a flow once, when it has closed. */
  void closed(UdpFlow f) {
    flowsInTable.decrementAndGet();
    if (f.oneShot) {
      oneShots.remove(f);
    } else {
      flows.remove(f.client, f);
    }
  }

  /** The udp timeout in force now ({@code lvs_timeouts udp} follows a reload). */
  long idleNanos() {
    return vs.udpTimeoutNanos();
  }

  /**
   * Ends the flows idle for the udp timeout they had at their last datagram, and one-packet flows
   * left unanswered.
   */
  private void sweep() {
    long now = System.nanoTime();
    List<UdpFlow> due = new ArrayList<>();
    for (UdpFlow f : flows.values()) {
      if (now - f.lastActivity() >= f.idleNanos()) {
        due.add(f);
      }
    }
    long unanswered = options.connectTimeout().toNanos();
    for (UdpFlow f : oneShots) {
      if (now - f.lastActivity() >= unanswered) {
        due.add(f);
      }
    }
    for (UdpFlow f : due) {
      f.close();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (sweeper != null) {
      sweeper.cancel(false);
    }
    for (UdpFlow f : new ArrayList<>(flows.values())) {
      f.close();
    }
    for (UdpFlow f : new ArrayList<>(oneShots)) {
      f.close();
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // An ICMP error for a datagram sent back to a client (it went away): nothing to do, the
    // socket stays; the client's flow expires by itself.
    log.debug("{}: {}", vs.service().key(), cause.toString());
  }

  /**
   * A datagram is dropped; says so in the log at most every 10 s per kind, with the count since.
   *
   * @param why what happened
   * @param who the datagram's client or server (varies; not part of the kind)
   */
  void drop(String why, Object who) {
    warnings.warn(vs.service().key(), why, who);
  }

  /** Live flows of this service (one-packet flows included), for tests and diagnostics. */
  int flowCount() {
    return flows.size() + oneShots.size();
  }
}

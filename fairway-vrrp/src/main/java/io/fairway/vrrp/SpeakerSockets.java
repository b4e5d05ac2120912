package io.fairway.vrrp;

import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.table.AddressFamily;
import io.fairway.vrrp.io.VrrpSocket;
import io.fairway.vrrp.packet.Advert;
import io.fairway.vrrp.packet.AdvertCodec;
import io.fairway.vrrp.packet.MalformedAdvertException;
import io.fairway.vrrp.view.DropKind;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The speaker's VRRP sockets, one per (interface, family, multicast group) however many instances
 * share it: adverts sent on them, and their receive threads, which hand each datagram to the event
 * thread.
 *
 * <p>A reload opens the sockets it needs before anything changes ({@link #open}) and closes the
 * ones no instance uses any more after ({@link #closeUnused}); a socket's receive thread releases
 * its descriptor when it ends.
 */
final class SpeakerSockets {
  private static final Logger log = LoggerFactory.getLogger(SpeakerSockets.class);

  /** Where adverts of one family on one interface are sent and received. */
  record Key(String interfaceName, AddressFamily family, InetAddress group) {
    static Key of(VrrpConfig c, VrrpInstance i) {
      return new Key(
          i.interfaceName(),
          i.family(),
          i.family() == AddressFamily.INET ? c.globals().mcastGroup4() : c.globals().mcastGroup6());
    }
  }

  /** Told each datagram received on a socket, on that socket's receive thread. */
  @FunctionalInterface
  interface Receiver {
    void received(VrrpSocket socket, VrrpSocket.Received datagram);
  }

  private final Map<Key, VrrpSocket> sockets = new ConcurrentHashMap<>();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private final PacketCounters counters;

  SpeakerSockets(PacketCounters counters) {
    this.counters = counters;
  }

  /** Opens the sockets {@code c} needs that are not open yet; on failure closes them again. */
  Map<Key, VrrpSocket> open(VrrpConfig c) throws IOException {
    Map<Key, VrrpSocket> opened = new LinkedHashMap<>();
    try {
      for (VrrpInstance i : c.instances()) {
        Key k = Key.of(c, i);
        if (!sockets.containsKey(k) && !opened.containsKey(k)) {
          opened.put(
              k, VrrpSocket.open(k.interfaceName(), k.family() == AddressFamily.INET, k.group()));
        }
      }
    } catch (IOException e) {
      for (VrrpSocket s : opened.values()) {
        s.close();
        s.release();
      }
      throw e;
    }
    sockets.putAll(opened);
    return opened;
  }

  /** Closes sockets {@link #open} opened for a reload that is not applied after all. */
  void abandon(Map<Key, VrrpSocket> opened) {
    for (Map.Entry<Key, VrrpSocket> e : opened.entrySet()) {
      sockets.remove(e.getKey(), e.getValue());
      e.getValue().close();
      e.getValue().release();
    }
  }

  /** The open socket instance {@code i} of {@code c} speaks on. */
  VrrpSocket of(VrrpConfig c, VrrpInstance i) {
    // open (or prepare) opened one for every instance of c before c is placed.
    return Objects.requireNonNull(sockets.get(Key.of(c, i)));
  }

  /**
   * Sends instance {@code in}'s advert at {@code priority} to its unicast peers or its multicast
   * group; a failure is counted and logged.
   */
  void send(RunningInstance in, int priority, VrrpConfig config) {
    VrrpInstance c = in.cfg;
    InetAddress src = in.source();
    if (src == null) {
      counters.count(DropKind.NO_SOURCE);
      return;
    }
    Advert ad =
        new Advert(
            c.version(),
            c.virtualRouterId(),
            priority,
            (int) (c.advertInterval().toMillis() / 10),
            in.advertised,
            c.authPass());
    List<InetAddress> to =
        c.unicast()
            ? c.unicastPeers()
            : List.of(
                c.family() == AddressFamily.INET
                    ? config.globals().mcastGroup4()
                    : config.globals().mcastGroup6());
    for (InetAddress dst : to) {
      try {
        // A running instance was placed, so it has its socket.
        Objects.requireNonNull(in.socket).send(AdvertCodec.encode(ad, src, dst), src, dst);
        in.counters.sent.incrementAndGet();
      } catch (IOException e) {
        counters.count(DropKind.SEND);
        log.warn("({}) {}", c.name(), e.getMessage());
      }
    }
  }

  /** Closes every socket none of {@code instances} uses (its receive thread then ends). */
  void closeUnused(Collection<RunningInstance> instances) {
    Set<VrrpSocket> used = Collections.newSetFromMap(new IdentityHashMap<>());
    for (RunningInstance in : instances) {
      used.add(in.socket);
    }
    sockets
        .values()
        .removeIf(
            s -> {
              if (used.contains(s)) {
                return false;
              }
              s.close(); // its receive thread releases the descriptor
              return true;
            });
  }

  /** A receive thread for each of {@code opened}, reading while {@code running} says so. */
  void startReceivers(Map<Key, VrrpSocket> opened, BooleanSupplier running, Receiver receiver) {
    for (Map.Entry<Key, VrrpSocket> e : opened.entrySet()) {
      Thread t =
          new Thread(
              () -> receiveLoop(e.getValue(), running, receiver),
              "fairway-vrrp-rx-" + e.getKey().interfaceName() + "/" + e.getKey().family());
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  /** Closes every socket and waits a little for each receive thread to end. */
  void close() {
    sockets.values().forEach(VrrpSocket::close);
    for (Thread t : threads) {
      try {
        t.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void receiveLoop(VrrpSocket s, BooleanSupplier running, Receiver receiver) {
    long kernelDrops = 0;
    try {
      while (running.getAsBoolean() && !s.isClosed()) {
        VrrpSocket.Received r;
        try {
          r = s.receive();
          long d = s.kernelDrops();
          counters.add(DropKind.SOCKET_OVERFLOW, (d - kernelDrops) & 0xffffffffL);
          kernelDrops = d;
        } catch (MalformedAdvertException e) {
          counters.packet();
          counters.count(DropKind.of(e.kind()));
          continue;
        } catch (IOException e) {
          counters.count(DropKind.RECEIVE);
          log.warn("{}", e.getMessage());
          continue;
        }
        if (r != null) {
          counters.packet();
          receiver.received(s, r);
        }
      }
    } finally {
      s.release();
    }
  }
}

package io.fairway.proxy;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.PlannedLimits;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Dest;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The data plane alone, for the scripts under {@code bench/}: one service in front of the given
 * backends, driven by commands on stdin the way the apply layer drives the table.
 *
 * <pre>
 * java -cp ... io.fairway.proxy.ProxyMain http|tcp|tcp-copy|tcp-splice LISTEN_PORT SCHEDULER HOST:PORT...
 * stdin: drain I | restore I | remove I | add I | reload | list | quit   (I = backend index from 0)
 * </pre>
 *
 * {@code tcp} is the L4 relay with default options (splicing bulk transfers), {@code tcp-copy}
 * never splices, {@code tcp-splice} splices after the threshold in {@code
 * -Dfairway.spliceThreshold} (default 0: everything).
 *
 * <p>{@code reload} applies what the apply layer applies when a reload changed a service: a new
 * scheduler and a changed weight, as table diffs on the running listener.
 */
public final class ProxyMain {
  private static final int UTHRESHOLD = Integer.getInteger("fairway.uthreshold", 0);
  private static final int MAX_CONNS = Integer.getInteger("fairway.maxConns", 0);

  private static Dest dest(InetSocketAddress a, int weight) {
    return new Dest(
        a.getAddress(),
        a.getPort(),
        io.fairway.table.ForwardingMethod.MASQ,
        weight,
        UTHRESHOLD,
        0,
        null);
  }

  /** {@code -Dfairway.maxConns=N}: every backend gets {@code max_conns N}, as the plan says it. */
  private static ListenerSpec withMaxConns(ListenerSpec plain, List<InetSocketAddress> backends) {
    if (MAX_CONNS == 0) {
      return plain;
    }
    Map<Dest, Integer> limits = new LinkedHashMap<>();
    for (InetSocketAddress a : backends) {
      limits.put(dest(a, 1), MAX_CONNS);
    }
    return PlannedLimits.of(plain, limits);
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: ProxyMain http|tcp LISTEN_PORT SCHEDULER HOST:PORT...");
      System.exit(2);
    }
    ListenerSpec plain =
        args[0].equals("http") ? ListenerSpec.http(RequestKey.CLIENT) : ListenerSpec.tcp();
    int threads = Integer.getInteger("fairway.threads", 0);
    ProxyOptions options = ProxyOptions.builder().ioThreads(threads).build();
    if (args[0].equals("tcp-splice")) {
      options =
          options.toBuilder().spliceThreshold(Long.getLong("fairway.spliceThreshold", 0)).build();
    } else if (args[0].equals("tcp-copy")) {
      options = options.toBuilder().spliceThreshold(-1).build();
    }
    List<InetSocketAddress> backends = new ArrayList<>();
    for (int i = 3; i < args.length; i++) {
      String[] hp = args[i].split(":");
      backends.add(new InetSocketAddress(hp[0], Integer.parseInt(hp[1])));
    }
    ListenerSpec spec = withMaxConns(plain, backends);
    ProxyTable t = new ProxyTable(options, k -> spec);
    ServiceKey k =
        ServiceKey.of(Protocol.TCP, InetAddress.getLoopbackAddress(), Integer.parseInt(args[1]));
    String sched = args[2];
    t.addService(Service.of(k, sched));
    for (InetSocketAddress a : backends) {
      t.addDest(k, dest(a, 1));
    }
    System.out.println("READY " + t.boundAddress(k).getPort());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    int reloads = 0;
    while ((line = in.readLine()) != null) {
      String[] w = line.trim().split("\\s+");
      try {
        switch (w[0]) {
          case "drain" -> t.setDest(k, dest(backends.get(Integer.parseInt(w[1])), 0));
          case "restore" -> t.setDest(k, dest(backends.get(Integer.parseInt(w[1])), 1));
          case "remove" -> t.delDest(k, Fixtures.key(backends.get(Integer.parseInt(w[1]))));
          case "add" -> t.addDest(k, dest(backends.get(Integer.parseInt(w[1])), 1));
          case "reload" -> {
            reloads++;
            t.setService(Service.of(k, reloads % 2 == 1 ? "wrr" : sched));
            InetSocketAddress b = backends.get(backends.size() > 1 ? 1 : 0);
            t.setDest(k, dest(b, 1 + reloads % 2));
          }
          case "list" -> {
            for (ServiceEntry e : t.list()) {
              System.out.println(e.service() + " " + e.dests());
            }
          }
          case "mem" -> { // direct memory the proxy's buffers hold (bench/proxy-idle-memory.sh)
            var m = ((io.netty.buffer.PooledByteBufAllocator) Transport.ALLOCATOR).metric();
            long buffers = m.directArenas().stream().mapToLong(a -> a.numActiveAllocations()).sum();
            System.out.println("MEM direct " + m.usedDirectMemory() + " buffers " + buffers);
          }
          case "quit" -> {
            t.close();
            System.exit(0);
          }
          default -> System.out.println("unknown command: " + line);
        }
        System.out.println("OK " + line);
      } catch (Exception e) {
        System.out.println("ERR " + line + ": " + e.getMessage());
      }
      System.out.flush();
    }
    t.close();
  }
}

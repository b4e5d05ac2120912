import io.fairway.check.QuorumChanged;
import io.fairway.check.ServerStateChanged;
import io.fairway.check.VerdictListener;
import io.fairway.check.VerdictSnapshot;
import io.fairway.check.WeightChanged;
import io.fairway.check.engine.CheckEngine;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.check.spec.VirtualServerSpec;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Benchmark driver: N real servers with TCP_CHECK (delay_loop 1 s, connect_timeout 1 s, retry 0) against N real
 * loopback listeners in another process. Measures this process's CPU in steady state and the time from a
 * listener being closed to its DOWN verdict. See docs/benchmarks-check.md.
 */
public class CheckTcp10k {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int measure = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        int kills = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        int threads = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        int port = 20000 + new Random().nextInt(20000);
        String cp = System.getProperty("java.class.path");
        Process listeners = new ProcessBuilder(listenerCommand(n, port)).redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader lin = new BufferedReader(new InputStreamReader(listeners.getInputStream()));
        PrintWriter lout = new PrintWriter(listeners.getOutputStream(), true);
        String ready = lin.readLine();
        if (ready == null || !ready.startsWith("ready")) {
            throw new IllegalStateException("listeners did not start: " + ready);
        }

        CheckTiming t = new CheckTiming(Duration.ofSeconds(1), Duration.ofSeconds(1), 0, Duration.ofSeconds(1),
                Duration.ofSeconds(1), false, 1);
        List<VirtualServerSpec> vss = new ArrayList<>();
        for (int v = 0; v < n / 100; v++) {
            List<RealServerSpec> rss = new ArrayList<>();
            for (int r = 0; r < 100; r++) {
                String a = address(v * 100 + r);
                rss.add(RealServerSpec.of(a, 1, new TcpCheckSpec(new InetSocketAddress(a, port), t)));
            }
            vss.add(VirtualServerSpec.of("vs" + v, rss, 1, 0));
        }
        Map<String, Long> down = new ConcurrentHashMap<>();
        Map<String, Integer> reasons = new ConcurrentHashMap<>();
        AtomicInteger events = new AtomicInteger();
        VerdictListener l = new VerdictListener() {
            public void initialState(VerdictSnapshot s) { }
            public void serverStateChanged(ServerStateChanged e) {
                events.incrementAndGet();
                if (!e.alive()) {
                    reasons.merge(e.reason().observation().replaceAll("[0-9]+ ms", "N ms"), 1, Integer::sum);
                    down.putIfAbsent(e.realServer(), System.nanoTime());
                }
            }
            public void weightChanged(WeightChanged e) { }
            public void quorumChanged(QuorumChanged e) { }
        };
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (CheckEngine engine = CheckEngine.builder().listener(l).eventLoopThreads(threads).build()) {
            engine.start(vss);
            Thread.sleep(10_000); // first round (1 s + warmup) and JIT warm-up
            long[] ticks0 = ticks();
            long cpu0 = os.getProcessCpuTime();
            long wall0 = System.nanoTime();
            long acc0 = accepts(lout, lin);
            String load = loadavg();
            Thread.sleep(measure * 1000L);
            long cpu1 = os.getProcessCpuTime();
            long[] ticks1 = ticks();
            long wall1 = System.nanoTime();
            long acc1 = accepts(lout, lin);
            load = load + " / " + loadavg();
            double cpuPct = 100.0 * (cpu1 - cpu0) / (wall1 - wall0);
            double rate = (acc1 - acc0) * 1e9 / (wall1 - wall0);
            int falseDowns = down.size();
            Map<String, Integer> falseReasons = new java.util.TreeMap<>(reasons);

            // Only DOWN verdicts from now on count; a server that flapped during the measurement is not picked.
            java.util.Set<String> flapped = new java.util.HashSet<>(down.keySet());
            down.clear();
            Random rnd = new Random(42);
            Map<String, Long> closedAt = new ConcurrentHashMap<>();
            for (int k = 0; k < kills; k++) {
                int i = rnd.nextInt(n);
                while (flapped.contains(address(i))) {
                    i = rnd.nextInt(n);
                }
                Thread.sleep(rnd.nextInt(1000));
                lout.println("close " + i);
                String[] w = lin.readLine().split(" ");
                closedAt.putIfAbsent(address(Integer.parseInt(w[1])), Long.parseLong(w[2]));
            }
            Thread.sleep(3000);
            List<Long> lat = new ArrayList<>();
            int missed = 0;
            for (var e : closedAt.entrySet()) {
                Long d = down.get(e.getKey());
                if (d == null || d < e.getValue()) {
                    missed++;
                } else {
                    lat.add((d - e.getValue()) / 1_000_000);
                }
            }
            Collections.sort(lat);
            System.out.printf("servers=%d (%s.x.y%s) event-loop-threads=%d measured=%ds%n", n, PREFIX,
                    System.getProperty("bench.netns", "").isEmpty() ? ", loopback" : ", netns+veth+RPS, pinned to CPU 0",
                    threads, measure);
            System.out.printf("CPU per check: %.1f us (process CPU / checks)%n",
                    (cpu1 - cpu0) / 1e3 / Math.max(1, acc1 - acc0));
            System.out.printf("checks/s=%.0f (expected %d)  cpu=%.1f%% of one core  (%d cores)%n", rate, n, cpuPct,
                    Runtime.getRuntime().availableProcessors());
            System.out.printf("  user=%.1f%% system=%.1f%% (of one core); load average before/after: %s%n",
                    100.0 * (ticks1[0] - ticks0[0]) / 100 / ((wall1 - wall0) / 1e9),
                    100.0 * (ticks1[1] - ticks0[1]) / 100 / ((wall1 - wall0) / 1e9), load);
            System.out.printf("false DOWN verdicts while measuring=%d %s%n", falseDowns, falseReasons);
            System.out.printf("death->verdict ms over %d kills: min=%d median=%d max=%d (bound delay_loop+connect_timeout=2000) missed=%d%n",
                    lat.size(), lat.isEmpty() ? -1 : lat.get(0), lat.isEmpty() ? -1 : lat.get(lat.size() / 2),
                    lat.isEmpty() ? -1 : lat.get(lat.size() - 1), missed);
        } finally {
            listeners.destroy();
        }
    }

    /** utime and stime of this process in clock ticks (USER_HZ = 100). */
    static long[] ticks() throws Exception {
        String st = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/stat")).get(0);
        String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
        return new long[]{Long.parseLong(f[11]), Long.parseLong(f[12])};
    }

    static String loadavg() throws Exception {
        try (var r = java.nio.file.Files.newBufferedReader(java.nio.file.Path.of("/proc/loadavg"))) {
            return r.readLine().substring(0, 14);
        }
    }

    static long accepts(PrintWriter out, BufferedReader in) throws Exception {
        out.println("accepts");
        return Long.parseLong(in.readLine().split(" ")[1]);
    }

    static final String PREFIX = System.getProperty("bench.prefix", "127.1");

    static String address(int i) {
        return PREFIX + "." + (i / 250) + "." + (i % 250 + 1);
    }

    /** The listeners, inside the benchmark's network namespace if there is one (see check-tcp-10k.sh). */
    static List<String> listenerCommand(int n, int port) {
        List<String> cmd = new ArrayList<>();
        String ns = System.getProperty("bench.netns", "");
        if (!ns.isEmpty()) {
            // the servers' own CPU: this process is pinned to CPU 0 (see check-tcp-10k.sh)
            cmd.addAll(List.of("taskset", "-c", "1", "ip", "netns", "exec", ns));
        }
        cmd.addAll(List.of("java", "-Xss256k", "bench/check-listeners.java", Integer.toString(n),
                Integer.toString(port), PREFIX));
        return cmd;
    }
}

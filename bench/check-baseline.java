import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Baseline for the check benchmark: the CPU a bare blocking connect + reset-close costs on this machine, against the
 * same kind of loopback listeners, with no framework at all. On loopback the kernel does both ends of the TCP
 * handshake in the connecting process's context, so this is the floor any TCP checker pays here.
 */
public class CheckBaseline {
    static final String PREFIX = System.getProperty("bench.prefix", "127.1");

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int total = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int port = 20000 + new Random().nextInt(20000);
        List<String> cmd = new ArrayList<>();
        String ns = System.getProperty("bench.netns", "");
        if (!ns.isEmpty()) {
            // the servers' own CPU: this process is pinned to CPU 0 (see check-tcp-10k.sh)
            cmd.addAll(List.of("taskset", "-c", "1", "ip", "netns", "exec", ns));
        }
        cmd.addAll(List.of("java", "bench/check-listeners.java", Integer.toString(n), Integer.toString(port), PREFIX));
        Process listeners = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader lin = new BufferedReader(new InputStreamReader(listeners.getInputStream()));
        PrintWriter lout = new PrintWriter(listeners.getOutputStream(), true);
        if (!lin.readLine().startsWith("ready")) {
            throw new IllegalStateException("listeners did not start");
        }
        try {
            run(n, 20_000, port); // warm-up
            long[] t0 = ticks();
            long w0 = System.nanoTime();
            run(n, total, port);
            long w1 = System.nanoTime();
            long[] t1 = ticks();
            double us = ((t1[0] - t0[0]) + (t1[1] - t0[1])) * 10_000.0 / total;
            System.out.printf("[%s] bare connect+RST-close: %d connections in %.1f s, %.1f us CPU each "
                            + "(user %.1f, system %.1f) => %.0f%% of one core at 10,000/s%n",
                    ns.isEmpty() ? "loopback" : "netns " + ns, total, (w1 - w0) / 1e9, us, (t1[0] - t0[0]) * 10_000.0 / total,
                    (t1[1] - t0[1]) * 10_000.0 / total, us * 10_000 / 1e6 * 100);
        } finally {
            listeners.destroy();
        }
    }

    static void run(int n, int count, int port) throws Exception {
        for (int i = 0; i < count; i++) {
            int k = i % n;
            try (SocketChannel c = SocketChannel.open()) {
                c.setOption(StandardSocketOptions.SO_LINGER, 0);
                c.connect(new InetSocketAddress(PREFIX + "." + (k / 250) + "." + (k % 250 + 1), port));
            }
        }
    }

    static long[] ticks() throws Exception {
        String st = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/stat")).get(0);
        String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
        return new long[]{Long.parseLong(f[11]), Long.parseLong(f[12])};
    }
}

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The "real servers" of the check benchmark: N TCP listeners on distinct addresses (prefix.x.y:port; prefix 127.1
 * on loopback by default, 10.200 inside the benchmark's network namespace), accepting and closing every
 * connection on one selector thread.
 * Commands on stdin: "close I" closes listener I and prints "closed I <System.nanoTime()>" (CLOCK_MONOTONIC,
 * comparable with the driver's); "accepts" prints the number of connections accepted so far.
 * Usage: check-listeners.java N port [prefix]. It only listens: it never sends traffic anywhere.
 */
public class CheckListeners {
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        int port = Integer.parseInt(args[1]);
        prefix = args.length > 2 ? args[2] : "127.1";
        Selector selector = Selector.open();
        ServerSocketChannel[] listeners = new ServerSocketChannel[n];
        for (int i = 0; i < n; i++) {
            ServerSocketChannel s = ServerSocketChannel.open();
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            s.bind(new InetSocketAddress(address(i), port), 128);
            s.configureBlocking(false);
            listeners[i] = s;
        }
        AtomicLong accepts = new AtomicLong();
        Object lock = new Object();
        Thread loop = new Thread(() -> {
            try {
                synchronized (lock) {
                    for (ServerSocketChannel s : listeners) {
                        s.register(selector, SelectionKey.OP_ACCEPT);
                    }
                }
                while (true) {
                    selector.select(100);
                    synchronized (lock) {
                        for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                            SelectionKey k = it.next();
                            it.remove();
                            if (!k.isValid()) {
                                continue;
                            }
                            SocketChannel c;
                            while ((c = ((ServerSocketChannel) k.channel()).accept()) != null) {
                                c.close();
                                accepts.incrementAndGet();
                            }
                        }
                    }
                }
            } catch (Exception e) {
                e.printStackTrace();
            }
        });
        loop.setDaemon(true);
        loop.start();
        System.out.println("ready " + n);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split(" ");
            if (w[0].equals("close")) {
                int i = Integer.parseInt(w[1]);
                selector.wakeup();
                synchronized (lock) {
                    listeners[i].close();
                }
                System.out.println("closed " + i + " " + System.nanoTime());
            } else if (w[0].equals("accepts")) {
                System.out.println("accepts " + accepts.get());
            }
            System.out.flush();
        }
    }

    static String prefix;

    static String address(int i) {
        return prefix + "." + (i / 250) + "." + (i % 250 + 1);
    }
}

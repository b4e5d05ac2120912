package io.fairway.check.checker;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.PingCheckSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * PING_CHECK over one ICMP "ping socket" ({@code SOCK_DGRAM, IPPROTO_ICMP}) shared by every ping checker, with
 * one receiver thread matching echo replies to requests by sequence number. No raw socket, no {@code ping} process
 * per check: the kernel fills in the ICMP id and checksum and hands us only our own replies.
 *
 * <p>Ping sockets are allowed only to groups in {@code net.ipv4.ping_group_range}, which is empty on many
 * distributions. Like keepalived, we widen it to include our group if we may (we run as root), and otherwise
 * refuse PING_CHECK at load with a message that says so.
 */
final class Pinger implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Pinger.class);
    private static final int AF_INET = 2;
    private static final int SOCK_DGRAM = 2;
    private static final int IPPROTO_ICMP = 1;
    private static final int SOL_SOCKET = 1;
    private static final int SO_RCVTIMEO = 20;
    private static final int EACCES = 13;
    private static final Path GROUP_RANGE = Path.of("/proc/sys/net/ipv4/ping_group_range");

    interface C extends Library {
        C INSTANCE = Native.load("c", C.class);

        int socket(int domain, int type, int protocol) throws LastErrorException;

        int setsockopt(int fd, int level, int name, Pointer value, int len) throws LastErrorException;

        long sendto(int fd, Pointer buf, long len, int flags, Pointer addr, int addrLen) throws LastErrorException;

        long recvfrom(int fd, Pointer buf, long len, int flags, Pointer addr, Pointer addrLen);

        int close(int fd);

        int getegid();
    }

    private record Pending(byte[] target, long sentAt, long deadline, Consumer<CheckResult> done, Duration timeout) {
    }

    private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicInteger sequence = new AtomicInteger();
    private volatile int fd = -1;
    private volatile boolean closed;
    private Thread receiver;

    synchronized Checker checker(PingCheckSpec spec, String where) {
        if (!(spec.target() instanceof Inet4Address)) {
            throw new CheckConfigException(where + ": PING_CHECK supports IPv4 targets only");
        }
        if (fd < 0) {
            fd = open(where);
            receiver = new Thread(this::receive, "fairway-ping");
            receiver.setDaemon(true);
            receiver.start();
        }
        return new Checker() {
            @Override
            public void check(Consumer<CheckResult> done) {
                send(spec.target(), spec.timing().connectTimeout(), done);
            }

            @Override
            public Duration deadline() {
                return spec.timing().connectTimeout().plusSeconds(1);
            }
        };
    }

    private static int open(String where) {
        try {
            return openSocket();
        } catch (LastErrorException e) {
            if (e.getErrorCode() == EACCES && widenGroupRange()) {
                try {
                    return openSocket();
                } catch (LastErrorException again) {
                    e = again;
                }
            }
            throw new CheckConfigException(where + ": cannot open an ICMP ping socket (errno " + e.getErrorCode()
                    + "); allow our group in net.ipv4.ping_group_range");
        } catch (UnsatisfiedLinkError e) {
            throw new CheckConfigException(where + ": ICMP ping sockets need Linux libc: " + e.getMessage());
        }
    }

    private static int openSocket() {
        int s = C.INSTANCE.socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
        Memory tv = new Memory(16);
        tv.setLong(0, 0);
        tv.setLong(8, 100_000); // 100 ms: how often the receiver wakes to expire unanswered requests
        C.INSTANCE.setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, tv, 16);
        return s;
    }

    private static boolean widenGroupRange() {
        try {
            int gid = C.INSTANCE.getegid();
            String line;
            // Not Files.readString: it trusts procfs's size of 0 and returns a truncated read.
            try (var r = Files.newBufferedReader(GROUP_RANGE)) {
                line = r.readLine();
            }
            String[] cur = line.trim().split("\\s+");
            long lo = Long.parseLong(cur[0]);
            long hi = Long.parseLong(cur[1]);
            long newLo = lo > hi ? gid : Math.min(lo, gid);
            long newHi = lo > hi ? gid : Math.max(hi, gid);
            Files.writeString(GROUP_RANGE, newLo + " " + newHi + "\n");
            log.info("widened net.ipv4.ping_group_range to {} {} for PING_CHECK", newLo, newHi);
            return true;
        } catch (IOException | RuntimeException e) {
            log.warn("cannot widen net.ipv4.ping_group_range: {}", e.toString());
            return false;
        }
    }

    private void send(InetAddress target, Duration timeout, Consumer<CheckResult> done) {
        int seq = sequence.incrementAndGet() & 0xffff;
        long now = System.nanoTime();
        byte[] addr = target.getAddress();
        pending.put(seq, new Pending(addr, now, now + timeout.toNanos(), done, timeout));
        Memory pkt = new Memory(16);
        pkt.clear();
        pkt.setByte(0, (byte) 8); // echo request; the kernel sets id and checksum
        pkt.setByte(6, (byte) (seq >> 8));
        pkt.setByte(7, (byte) seq);
        pkt.setLong(8, now);
        Memory sa = new Memory(16);
        sa.clear();
        sa.setShort(0, (short) AF_INET);
        sa.write(4, addr, 0, 4);
        try {
            C.INSTANCE.sendto(fd, pkt, 16, 0, sa, 16);
        } catch (LastErrorException e) {
            Pending p = pending.remove(seq);
            if (p != null) {
                p.done().accept(CheckResult.fail("cannot send echo request (errno " + e.getErrorCode() + ")"));
            }
        }
    }

    private void receive() {
        Memory buf = new Memory(1500);
        Memory from = new Memory(16);
        Memory fromLen = new Memory(4);
        while (!closed) {
            fromLen.setInt(0, 16);
            long n = C.INSTANCE.recvfrom(fd, buf, 1500, 0, from, fromLen);
            if (n >= 8 && buf.getByte(0) == 0) {
                int seq = ((buf.getByte(6) & 0xff) << 8) | (buf.getByte(7) & 0xff);
                Pending p = pending.get(seq);
                if (p != null && java.util.Arrays.equals(p.target(), from.getByteArray(4, 4))
                        && pending.remove(seq, p)) {
                    long micros = (System.nanoTime() - p.sentAt()) / 1000;
                    p.done().accept(CheckResult.ok("echo reply in " + micros / 1000.0 + " ms"));
                }
            }
            expire();
        }
    }

    private void expire() {
        long now = System.nanoTime();
        for (Iterator<Map.Entry<Integer, Pending>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Pending p = it.next().getValue();
            if (now - p.deadline() > 0) {
                it.remove();
                p.done().accept(CheckResult.fail("no echo reply within " + p.timeout().toMillis() + " ms"));
            }
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (receiver != null) {
            try {
                receiver.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (fd >= 0) {
            C.INSTANCE.close(fd);
            fd = -1;
        }
    }
}

// CPU per call of the VRRP speaker's recurring operations, measured with the thread's CPU clock
// (robust on a loaded machine). Run inside a namespace whose eth0 holds the addresses a master of
// N instances holds, e.g. (root):
//   ip netns add vrrpops-hot; ip -n vrrpops-hot link add eth0 type dummy
//   ip -n vrrpops-hot addr add 10.99.0.1/24 dev eth0; ip -n vrrpops-hot link set eth0 up
//   for i in $(seq 1 100); do ip -n vrrpops-hot addr add 10.98.0.$i/32 dev eth0; done
//   ip netns exec vrrpops-hot java -cp fairway-daemon/target/fairway.jar bench/vrrp-hot-paths.java
import io.fairway.vrrp.io.Link;
import io.fairway.vrrp.io.VrrpSocket;
import io.fairway.vrrp.packet.Advert;
import io.fairway.vrrp.packet.AdvertCodec;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

public class VrrpHotPaths {
  static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

  interface Op {
    void run() throws Exception;
  }

  static void measure(String what, int n, Op op) throws Exception {
    for (int i = 0; i < Math.min(n, 2000); i++) {
      op.run(); // warm-up
    }
    long c0 = MX.getCurrentThreadCpuTime();
    for (int i = 0; i < n; i++) {
      op.run();
    }
    long c1 = MX.getCurrentThreadCpuTime();
    System.out.printf("%-52s %10.1f us CPU per call (%d calls)%n", what, (c1 - c0) / 1e3 / n, n);
  }

  public static void main(String[] args) throws Exception {
    List<InetAddress> vips = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      vips.add(InetAddress.getByName("10.98.0." + i));
    }
    InetAddress src = InetAddress.getByName("10.99.0.1");
    InetAddress group = InetAddress.getByName("224.0.0.18");
    measure("Link.read(eth0) via NetworkInterface, 101 addresses", 2000,
        () -> Link.read("eth0", vips));
    io.fairway.vrrp.io.LinkWatch watch = io.fairway.vrrp.io.LinkWatch.open();
    long[] clock = {0};
    // As the speaker polls: every 200 ms, a whole read once a second.
    measure("LinkWatch.get(eth0), polled every 200 ms", 20_000,
        () -> watch.get("eth0", vips, clock[0] += 200_000_000L));
    Advert ad = new Advert(2, 51, 150, 100, List.of(vips.get(0)), Optional.empty());
    measure("new Advert + AdvertCodec.encode", 200_000, () -> AdvertCodec.encode(
        new Advert(2, 51, 150, 100, List.of(vips.get(0)), Optional.empty()), src, group));
    VrrpSocket s = VrrpSocket.open("eth0", true, group);
    byte[] vrrp = AdvertCodec.encode(ad, src, group);
    measure("VrrpSocket.send (IP header, JNA sendto)", 20_000, () -> s.send(vrrp, src, group));
    measure("VrrpSocket.receive timing out (200 ms, EAGAIN)", 10, s::receive);
    s.close();
    s.release();
  }
}

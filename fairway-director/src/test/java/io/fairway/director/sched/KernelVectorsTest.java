package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Client → server vectors recorded from Linux 6.1's IPVS (user-mode Linux, /proc/net/ip_vs_conn;
 * see {@link SchedulerKernelAgreementTest}, which re-derives thousands of them live). Pinned here
 * so the hash functions stay checked on machines without user-mode Linux.
 */
class KernelVectorsTest {

  /** Added in this order, so the kernel's list is the reverse: 1.6, 1.5, ..., 1.1. */
  static final List<DestSpec> SIX =
      List.of(
          DestSpec.of("10.16.1.1", 80, 1),
          DestSpec.of("10.16.1.2", 80, 3),
          DestSpec.of("10.16.1.3", 80, 0),
          DestSpec.of("10.16.1.4", 80, 2),
          DestSpec.of("10.16.1.5", 80, 1),
          DestSpec.of("10.16.1.6", 80, 4));

  static final List<DestSpec> V6 =
      List.of(
          DestSpec.of("fd00:16::2:1", 80, 1),
          DestSpec.of("fd00:16::2:2", 80, 2),
          DestSpec.of("fd00:16::2:3", 80, 1),
          DestSpec.of("fd00:16::2:4", 80, 3),
          DestSpec.of("fd00:16::2:5", 80, 1));

  private static String pick(
      String sched, List<String> flags, List<DestSpec> dests, String client, int port) {
    SchedService vs = Schedulers.service(sched, flags, dests);
    SchedDest d = vs.pick(new Flow(AddressFold.parse(client), port, null, 80));
    return d == null ? "none" : d.address().getHostAddress();
  }

  @ParameterizedTest(name = "sh {0} -> {2}")
  @CsvSource({
    "10.17.219.179, 4737, 10.16.1.2",
    "10.17.131.131, 31950, 10.16.1.6",
    "10.17.96.63, 53623, 10.16.1.6",
    "10.17.23.245, 42925, 10.16.1.6",
    "10.17.208.62, 5107, 10.16.1.5",
    "10.17.157.225, 59145, 10.16.1.6"
  })
  void sourceHashing(String client, int port, String server) {
    assertThat(pick("sh", List.of(), SIX, client, port)).isEqualTo(server);
  }

  @ParameterizedTest(name = "sh-port,sh-fallback {0}:{1} -> {2}")
  @CsvSource({
    "10.17.139.8, 30687, 10.16.1.6",
    "10.17.191.164, 7217, 10.16.1.2",
    "10.17.153.183, 39963, 10.16.1.6",
    "10.17.80.233, 48033, 10.16.1.1",
    "10.17.90.123, 4160, 10.16.1.6",
    "10.17.68.129, 32424, 10.16.1.6"
  })
  void sourceHashingWithPortAndFallback(String client, int port, String server) {
    assertThat(pick("sh", List.of("sh-fallback", "sh-port"), SIX, client, port)).isEqualTo(server);
  }

  @ParameterizedTest(name = "mh {0} -> {2}")
  @CsvSource({
    "10.17.185.115, 14437, 10.16.1.6",
    "10.17.249.153, 25041, 10.16.1.1",
    "10.17.220.160, 43600, 10.16.1.5",
    "10.17.37.231, 49087, 10.16.1.4",
    "10.17.172.43, 56387, 10.16.1.5",
    "10.17.233.149, 47940, 10.16.1.2"
  })
  void maglev(String client, int port, String server) {
    assertThat(pick("mh", List.of(), SIX, client, port)).isEqualTo(server);
  }

  @ParameterizedTest(name = "mh big weights {0} -> {2}")
  @CsvSource({
    "10.17.24.163, 5758, 10.16.4.3",
    "10.17.117.63, 56142, 10.16.4.3",
    "10.17.7.233, 57365, 10.16.4.3",
    "10.17.176.156, 22319, 10.16.4.2",
    "10.17.110.168, 11855, 10.16.4.2",
    "10.17.217.6, 33848, 10.16.4.2"
  })
  void maglevWithWeightsNeedingAShift(String client, int port, String server) {
    List<DestSpec> big =
        List.of(
            DestSpec.of("10.16.4.1", 80, 7),
            DestSpec.of("10.16.4.2", 80, 1000),
            DestSpec.of("10.16.4.3", 80, 333),
            DestSpec.of("10.16.4.4", 80, 64));
    assertThat(pick("mh", List.of(), big, client, port)).isEqualTo(server);
  }

  @ParameterizedTest(name = "sh v6 {0} -> {2}")
  @CsvSource({
    "fd00:17:760c:e76b:a5c:294:c548:c220, 19143, fd00:16:0:0:0:0:2:4",
    "fd00:17:3bef:9eaf:5435:2bb2:e6e6:9d34, 7743, fd00:16:0:0:0:0:2:5",
    "fd00:17:2a54:8e88:abb2:c9c1:b075:168e, 24901, fd00:16:0:0:0:0:2:3"
  })
  void sourceHashingIpv6(String client, int port, String server) {
    assertThat(pick("sh", List.of(), V6, client, port)).isEqualTo(server);
  }

  @ParameterizedTest(name = "mh-port v6 {0}:{1} -> {2}")
  @CsvSource({
    "fd00:17:a2d1:7970:75e5:2313:c58c:f40b, 35795, fd00:16:0:0:0:0:2:1",
    "fd00:17:6b2:4f8f:558f:b5fb:2f91:8569, 23715, fd00:16:0:0:0:0:2:4",
    "fd00:17:14ad:99d:e23e:c73c:89f8:2c8c, 12203, fd00:16:0:0:0:0:2:2"
  })
  void maglevIpv6WithPort(String client, int port, String server) {
    assertThat(pick("mh", List.of("mh-port"), V6, client, port)).isEqualTo(server);
  }

  @ParameterizedTest(name = "dh {0} -> {1}")
  @CsvSource({
    "10.18.205.92, 10.16.2.2",
    "10.18.76.129, 10.16.2.1",
    "10.18.36.186, 10.16.2.3",
    "10.18.27.213, 10.16.2.1",
    "10.18.39.224, 10.16.2.3"
  })
  void destinationHashing(String destination, String server) {
    List<DestSpec> caches =
        List.of(
            DestSpec.of("10.16.2.1", 0, 1),
            DestSpec.of("10.16.2.2", 0, 1),
            DestSpec.of("10.16.2.3", 0, 2),
            DestSpec.of("10.16.2.4", 0, 0),
            DestSpec.of("10.16.2.5", 0, 1));
    SchedService vs = Schedulers.service("dh", List.of(), caches);
    SchedDest d = vs.pick(Flows.fromKeyLine("dh", destination));
    assertThat(d.address().getHostAddress()).isEqualTo(server);
  }

  @Test
  void weightedRoundRobinSequenceAsTheKernelStartsIt() {
    // Servers added one by one: cw is carried through each add, so the first pass admits everyone.
    SchedService vs =
        Schedulers.service(
            "wrr",
            List.of(),
            List.of(
                DestSpec.of("10.16.5.1", 80, 4),
                DestSpec.of("10.16.5.2", 80, 6),
                DestSpec.of("10.16.5.3", 80, 2)));
    StringBuilder seq = new StringBuilder();
    for (int i = 0; i < 12; i++) {
      seq.append(
              vs.open(Flow.fromClient(AddressFold.parse("10.17.9.10"), 40000 + i))
                  .dest()
                  .address()
                  .getHostAddress()
                  .substring(6))
          .append(' ');
    }
    assertThat(seq.toString().trim()).isEqualTo("5.3 5.2 5.1 5.2 5.2 5.1 5.3 5.2 5.1 5.2 5.2 5.1");
  }

  @Test
  void hashFunctions() {
    // hash_32(0, 8) is 0; golden-ratio multiply keeps the top bits.
    assertThat(KernelHash.hash32(0, 8)).isZero();
    assertThat(KernelHash.hash32(1, 8)).isEqualTo(0x61C88647 >>> 24);
    assertThat(KernelHash.hash32(2, 32))
        .isEqualTo((int) (0x61C88647L * 2)); // the kernel multiplies in 32 bits: it wraps
    // IPv6 fold: XOR of the four words.
    assertThat(AddressFold.fold(AddressFold.parse("::1"))).isEqualTo(1);
    assertThat(AddressFold.fold(AddressFold.parse("1:2:3:4:5:6:7:8")))
        .isEqualTo(0x00010002 ^ 0x00030004 ^ 0x00050006 ^ 0x00070008);
    assertThat(KernelScheduler.fold(AddressFold.parse("10.17.0.1"))).isEqualTo(0x0A110001);
  }
}

package io.fairway.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link Table} must do, in the kernel's terms. Runs against {@link MemoryTable} on any
 * machine and against the kernel's IPVS inside user-mode Linux, which is what proves the memory
 * table a faithful stand-in: a test that passes on one and fails on the other is a difference
 * between them.
 *
 * <p>Addresses are in 10.16.0.0/12 and 2001:db8::/32, which the UML harness routes to lo.
 */
public abstract class TableContract {
  protected Table table;

  /** An empty table. */
  protected abstract Table newTable() throws Exception;

  @BeforeEach
  void freshTable() throws Exception {
    table = newTable();
  }

  public static InetAddress ip(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(s, e);
    }
  }

  static final ServiceKey WEB = ServiceKey.of(Protocol.TCP, ip("10.16.0.1"), 80);
  static final ServiceKey DNS = ServiceKey.of(Protocol.UDP, ip("10.16.0.3"), 53);
  static final ServiceKey WEB6 = ServiceKey.of(Protocol.TCP, ip("2001:db8::1"), 80);
  static final ServiceKey MARK = ServiceKey.fwmark(AddressFamily.INET, 7);

  static Dest nat(String addr, int port, int weight) {
    return Dest.of(ip(addr), port, weight);
  }

  private ServiceEntry only(ServiceKey key) throws TableException {
    List<ServiceEntry> found = new ArrayList<>();
    for (ServiceEntry e : table.list()) {
      if (e.service().key().equals(key)) {
        found.add(e);
      }
    }
    assertThat(found).as("services with key %s", key).hasSize(1);
    return found.get(0);
  }

  private Dest destOf(ServiceKey key, DestKey dest) throws TableException {
    for (DestEntry d : only(key).dests()) {
      if (d.dest().key().equals(dest)) {
        return d.dest();
      }
    }
    throw new AssertionError("no dest " + dest + " in " + key);
  }

  private static void fails(ThrowingCallable call, TableException.Reason reason, String message) {
    assertThatThrownBy(call)
        .isInstanceOf(TableException.class)
        .hasMessageStartingWith(message)
        .satisfies(t -> assertThat(((TableException) t).reason()).isEqualTo(reason));
  }

  @Test
  void anEmptyTableListsNothing() throws Exception {
    assertThat(table.list()).isEmpty();
  }

  @Test
  void addedServiceReadsBackWithItsSettings() throws Exception {
    Service s = new Service(WEB, "wlc", Set.of(ServiceFlag.PERSISTENT), 300, 24, null);
    table.addService(s);
    ServiceEntry e = only(WEB);
    assertThat(e.service()).isEqualTo(s);
    assertThat(e.dests()).isEmpty();
  }

  @Test
  void addingAServiceTwiceIsEexist() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    fails(
        () -> table.addService(Service.of(WEB, "wrr")),
        TableException.Reason.EXISTS,
        "TCP 10.16.0.1:80: already exists (EEXIST)");
    assertThat(only(WEB).service().scheduler()).isEqualTo("rr");
  }

  @Test
  void changingOrDeletingAMissingServiceIsEsrch() {
    fails(
        () -> table.setService(Service.of(WEB, "rr")),
        TableException.Reason.NO_SERVICE,
        "TCP 10.16.0.1:80: no such service (ESRCH)");
    fails(
        () -> table.delService(WEB),
        TableException.Reason.NO_SERVICE,
        "TCP 10.16.0.1:80: no such service (ESRCH)");
  }

  @Test
  void anUnknownSchedulerIsEnoent() throws Exception {
    fails(
        () -> table.addService(Service.of(WEB, "nosuch")),
        TableException.Reason.NOT_FOUND,
        "TCP 10.16.0.1:80: unknown scheduler \"nosuch\"");
    assertThat(table.list()).isEmpty();
  }

  @Test
  void anUnknownPersistenceEngineIsEnoent() {
    Service s = new Service(DNS, "rr", Set.of(ServiceFlag.PERSISTENT), 60, 32, "nosuch");
    fails(
        () -> table.addService(s),
        TableException.Reason.NOT_FOUND,
        "UDP 10.16.0.3:53: unknown scheduler \"rr\" or persistence engine \"nosuch\"");
  }

  @Test
  void setServiceReplacesSchedulerFlagsAndPersistence() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    table.addDest(WEB, nat("10.16.1.1", 80, 1));
    Service changed =
        new Service(
            WEB,
            "sh",
            Set.of(ServiceFlag.PERSISTENT, ServiceFlag.SCHED1, ServiceFlag.SCHED2),
            60,
            16,
            null);
    table.setService(changed);
    ServiceEntry e = only(WEB);
    assertThat(e.service()).isEqualTo(changed);
    assertThat(e.dests()).hasSize(1);
    table.setService(Service.of(WEB, "rr"));
    assertThat(only(WEB).service()).isEqualTo(Service.of(WEB, "rr"));
  }

  @Test
  void udpOnePacketSctpAndPersistenceEngineReadBack() throws Exception {
    Service ops =
        new Service(DNS, "sh", Set.of(ServiceFlag.ONE_PACKET, ServiceFlag.SCHED1), 0, 32, null);
    Service sctp = Service.of(ServiceKey.of(Protocol.SCTP, ip("10.16.0.4"), 9), "fo");
    Service sip =
        new Service(
            ServiceKey.of(Protocol.UDP, ip("10.16.0.6"), 5060),
            "rr",
            Set.of(ServiceFlag.PERSISTENT),
            60,
            32,
            "sip");
    table.addService(ops);
    table.addService(sctp);
    table.addService(sip);
    assertThat(table.list())
        .extracting(ServiceEntry::service)
        .containsExactlyInAnyOrder(ops, sctp, sip);
  }

  @Test
  void ipv6ServiceWithPrefixAndIpv6Destinations() throws Exception {
    Service s = new Service(WEB6, "wrr", Set.of(ServiceFlag.PERSISTENT), 10, 64, null);
    table.addService(s);
    table.addDest(WEB6, nat("2001:db8::2", 8080, 7));
    assertThat(only(WEB6).service()).isEqualTo(s);
    assertThat(destOf(WEB6, new DestKey(ip("2001:db8::2"), 8080)))
        .isEqualTo(nat("2001:db8::2", 8080, 7));
  }

  @Test
  void anIpv6PersistencePrefixOfZeroIsEinval() {
    Service s = new Service(WEB6, "rr", Set.of(ServiceFlag.PERSISTENT), 10, 0, null);
    fails(
        () -> table.addService(s),
        TableException.Reason.INVALID,
        "TCP [2001:db8::1]:80: refused: malformed request");
  }

  @Test
  void fwmarkServicesOfBothFamiliesWithDirectRouting() throws Exception {
    ServiceKey mark6 = ServiceKey.fwmark(AddressFamily.INET6, 8);
    table.addService(Service.of(MARK, "mh"));
    table.addService(Service.of(mark6, "rr").withPersistence(60, 128));
    Dest dr = new Dest(ip("10.16.1.6"), 0, ForwardingMethod.DROUTE, 3, 0, 0, null);
    Dest dr6 = new Dest(ip("2001:db8::5"), 0, ForwardingMethod.DROUTE, 1, 0, 0, null);
    table.addDest(MARK, dr);
    table.addDest(mark6, dr6);
    assertThat(destOf(MARK, dr.key())).isEqualTo(dr);
    assertThat(destOf(mark6, dr6.key())).isEqualTo(dr6);
    assertThat(only(mark6).service().timeout()).isEqualTo(60);
  }

  @Test
  void destinationsReadBackWithWeightThresholdsAndForwarding() throws Exception {
    table.addService(Service.of(WEB, "wlc"));
    Dest a = new Dest(ip("10.16.1.1"), 80, ForwardingMethod.MASQ, 5, 100, 50, null);
    Dest b = new Dest(ip("10.16.1.2"), 80, ForwardingMethod.DROUTE, 0, 10, 0, null);
    Dest c = new Dest(ip("10.16.1.3"), 80, ForwardingMethod.TUNNEL, 2, 0, 0, null);
    table.addDest(WEB, a);
    table.addDest(WEB, b);
    table.addDest(WEB, c);
    assertThat(only(WEB).dests()).extracting(DestEntry::dest).containsExactlyInAnyOrder(a, b, c);
    assertThat(only(WEB).dests())
        .allSatisfy(
            d -> {
              assertThat(d.activeConnections()).isZero();
              assertThat(d.inactiveConnections()).isZero();
            });
  }

  @Test
  void tunnelEncapsulationsReadBack() throws Exception {
    table.addService(Service.of(WEB6, "rr"));
    Dest gue =
        new Dest(
            ip("2001:db8::3"),
            80,
            ForwardingMethod.TUNNEL,
            1,
            0,
            0,
            new Tunnel(Tunnel.Type.GUE, 6080, Tunnel.Checksum.NOCSUM));
    Dest gre =
        new Dest(
            ip("2001:db8::4"),
            80,
            ForwardingMethod.TUNNEL,
            1,
            0,
            0,
            new Tunnel(Tunnel.Type.GRE, 0, Tunnel.Checksum.CSUM));
    Dest ipip = new Dest(ip("2001:db8::5"), 80, ForwardingMethod.TUNNEL, 1, 0, 0, Tunnel.IPIP);
    // settings the kernel does not keep: read back as Dest.normalized() says
    Dest ipipCsum =
        new Dest(
            ip("2001:db8::6"),
            80,
            ForwardingMethod.TUNNEL,
            1,
            0,
            0,
            new Tunnel(Tunnel.Type.IPIP, 0, Tunnel.Checksum.CSUM));
    Dest grePort =
        new Dest(
            ip("2001:db8::7"),
            80,
            ForwardingMethod.TUNNEL,
            1,
            0,
            0,
            new Tunnel(Tunnel.Type.GRE, 999, Tunnel.Checksum.REMCSUM));
    for (Dest d : List.of(gue, gre, ipip, ipipCsum, grePort)) {
      table.addDest(WEB6, d);
    }
    assertThat(only(WEB6).dests())
        .extracting(DestEntry::dest)
        .containsExactlyInAnyOrder(
            gue, gre, ipip.normalized(), ipipCsum.normalized(), grePort.normalized());
    assertThat(ipip.normalized().tunnel()).isNull();
    assertThat(grePort.normalized().tunnel())
        .isEqualTo(new Tunnel(Tunnel.Type.GRE, 0, Tunnel.Checksum.REMCSUM));
  }

  @Test
  void addingADestinationTwiceIsEexist() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    table.addDest(WEB, nat("10.16.1.1", 80, 1));
    fails(
        () -> table.addDest(WEB, nat("10.16.1.1", 80, 9)),
        TableException.Reason.EXISTS,
        "TCP 10.16.0.1:80: dest 10.16.1.1:80: already exists (EEXIST)");
    assertThat(destOf(WEB, new DestKey(ip("10.16.1.1"), 80)).weight()).isEqualTo(1);
  }

  @Test
  void aDestinationForAMissingServiceIsEsrch() {
    fails(
        () -> table.addDest(WEB, nat("10.16.1.1", 80, 1)),
        TableException.Reason.NO_SERVICE,
        "TCP 10.16.0.1:80: dest 10.16.1.1:80: no such service (ESRCH)");
    fails(
        () -> table.delDest(WEB, new DestKey(ip("10.16.1.1"), 80)),
        TableException.Reason.NO_SERVICE,
        "TCP 10.16.0.1:80: dest 10.16.1.1:80: no such service (ESRCH)");
  }

  @Test
  void changingOrDeletingAMissingDestinationIsEnoent() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    fails(
        () -> table.setDest(WEB, nat("10.16.1.1", 80, 1)),
        TableException.Reason.NOT_FOUND,
        "TCP 10.16.0.1:80: dest 10.16.1.1:80: no such destination (ENOENT)");
    fails(
        () -> table.delDest(WEB, new DestKey(ip("10.16.1.1"), 80)),
        TableException.Reason.NOT_FOUND,
        "TCP 10.16.0.1:80: dest 10.16.1.1:80: no such destination (ENOENT)");
  }

  @Test
  void aLowerThresholdAboveTheUpperIsErange() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    Dest noUpper = new Dest(ip("10.16.1.1"), 80, ForwardingMethod.MASQ, 1, 0, 5, null);
    fails(
        () -> table.addDest(WEB, noUpper),
        TableException.Reason.RANGE,
        "TCP 10.16.0.1:80: dest 10.16.1.1:80: lower threshold 5 is above upper threshold 0 (ERANGE)");
    table.addDest(WEB, nat("10.16.1.1", 80, 1));
    Dest inverted = new Dest(ip("10.16.1.1"), 80, ForwardingMethod.MASQ, 1, 10, 20, null);
    fails(
        () -> table.setDest(WEB, inverted),
        TableException.Reason.RANGE,
        "TCP 10.16.0.1:80: dest 10.16.1.1:80: lower threshold 20 is above upper threshold 10 (ERANGE)");
  }

  @Test
  void aMulticastDestinationIsEinval() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    fails(
        () -> table.addDest(WEB, nat("224.0.0.1", 80, 1)),
        TableException.Reason.INVALID,
        "TCP 10.16.0.1:80: dest 224.0.0.1:80: refused");
  }

  @Test
  void aDestinationOfTheOtherFamilyNeedsTunnelling() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    fails(
        () -> table.addDest(WEB, nat("2001:db8::9", 80, 1)),
        TableException.Reason.INVALID,
        "TCP 10.16.0.1:80: dest [2001:db8::9]:80: refused");
    Dest tun = new Dest(ip("2001:db8::9"), 80, ForwardingMethod.TUNNEL, 1, 0, 0, null);
    table.addDest(WEB, tun);
    assertThat(destOf(WEB, tun.key())).isEqualTo(tun);
  }

  @Test
  void setDestChangesWeightForwardingAndThresholdsInPlace() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    table.addDest(WEB, nat("10.16.1.1", 80, 1));
    Dest drained = nat("10.16.1.1", 80, 0);
    table.setDest(WEB, drained);
    assertThat(destOf(WEB, drained.key())).isEqualTo(drained);
    Dest changed = new Dest(ip("10.16.1.1"), 80, ForwardingMethod.DROUTE, 4, 20, 10, null);
    table.setDest(WEB, changed);
    assertThat(destOf(WEB, changed.key())).isEqualTo(changed);
  }

  @Test
  void deletedDestinationsGoAndCanComeBack() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    table.addDest(WEB, nat("10.16.1.1", 80, 1));
    table.addDest(WEB, nat("10.16.1.2", 80, 1));
    table.delDest(WEB, new DestKey(ip("10.16.1.1"), 80));
    assertThat(only(WEB).dests())
        .extracting(d -> d.dest().key())
        .containsExactly(new DestKey(ip("10.16.1.2"), 80));
    table.addDest(WEB, nat("10.16.1.1", 80, 3));
    assertThat(destOf(WEB, new DestKey(ip("10.16.1.1"), 80)).weight()).isEqualTo(3);
  }

  @Test
  void deletingAServiceDeletesItsDestinations() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    table.addDest(WEB, nat("10.16.1.1", 80, 1));
    table.delService(WEB);
    assertThat(table.list()).isEmpty();
    table.addService(Service.of(WEB, "rr"));
    assertThat(only(WEB).dests()).isEmpty();
  }

  @Test
  void flushEmptiesTheTable() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    table.addService(Service.of(MARK, "rr"));
    table.addDest(WEB, nat("10.16.1.1", 80, 1));
    table.flush();
    assertThat(table.list()).isEmpty();
  }

  @Test
  void aBatchAttemptsEveryOperationAndReportsEachResult() throws Exception {
    DestKey one = new DestKey(ip("10.16.1.1"), 80);
    List<TableOp> ops =
        List.of(
            new TableOp.AddService(Service.of(WEB, "rr")),
            new TableOp.AddDest(WEB, nat("10.16.1.1", 80, 1)),
            new TableOp.AddDest(WEB, nat("10.16.1.1", 80, 2)),
            new TableOp.DelDest(WEB, new DestKey(ip("10.16.1.9"), 80)),
            new TableOp.AddDest(DNS, nat("10.16.1.5", 53, 1)),
            new TableOp.SetDest(WEB, nat("10.16.1.1", 80, 4)),
            new TableOp.AddService(Service.of(DNS, "nosuch")),
            new TableOp.AddDest(WEB, nat("10.16.1.2", 80, 1)));
    List<TableException> results = table.apply(ops);
    assertThat(results).hasSize(ops.size());
    assertThat(results)
        .extracting(e -> e == null ? null : e.reason())
        .containsExactly(
            null,
            null,
            TableException.Reason.EXISTS,
            TableException.Reason.NOT_FOUND,
            TableException.Reason.NO_SERVICE,
            null,
            TableException.Reason.NOT_FOUND,
            null);
    assertThat(results.get(2))
        .hasMessage("TCP 10.16.0.1:80: dest 10.16.1.1:80: already exists (EEXIST)");
    assertThat(destOf(WEB, one).weight()).isEqualTo(4);
    assertThat(only(WEB).dests()).hasSize(2);
    assertThat(table.list()).hasSize(1);
  }

  @Test
  void aLargeBatchInstallsEverything() throws Exception {
    List<TableOp> ops = new ArrayList<>();
    int services = 3;
    int perService = 700; // more requests than fit one datagram
    for (int s = 0; s < services; s++) {
      ServiceKey k = ServiceKey.of(Protocol.TCP, ip("10.16.0." + (10 + s)), 80);
      ops.add(new TableOp.AddService(Service.of(k, "wrr")));
      for (int d = 0; d < perService; d++) {
        ops.add(
            new TableOp.AddDest(
                k, nat("10.17." + (d / 250) + "." + (1 + d % 250), 8000 + s, 1 + d % 5)));
      }
    }
    List<TableException> results = table.apply(ops);
    assertThat(results).containsOnlyNulls();
    List<ServiceEntry> listed = table.list();
    assertThat(listed).hasSize(services);
    assertThat(listed).allSatisfy(e -> assertThat(e.dests()).hasSize(perService));
    int weightSum =
        listed.stream().flatMap(e -> e.dests().stream()).mapToInt(d -> d.dest().weight()).sum();
    int expected = 0;
    for (int d = 0; d < perService; d++) {
      expected += 1 + d % 5;
    }
    assertThat(weightSum).isEqualTo(services * expected);
  }
}

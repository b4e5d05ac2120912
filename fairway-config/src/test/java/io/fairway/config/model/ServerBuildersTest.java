package io.fairway.config.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.model.base.Location;
import io.fairway.config.model.base.Script;
import io.fairway.table.AddressFamily;
import java.lang.reflect.RecordComponent;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The builders carry every component: a new one that toBuilder() forgot to copy fails here. The
 * location is left out of the comparison, as locations are always equal.
 */
class ServerBuildersTest {
  private static final Location AT = new Location("test.conf", 3);

  @Test
  void everyRealServerValueSurvivesToBuilder() throws Exception {
    RealServer defaults = minimalReal();
    RealServer changed = changedReal();
    assertEveryComponentDiffers(RealServer.class, changed, defaults);
    assertThat(changed.toBuilder().build()).isEqualTo(changed);
    assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
  }

  @Test
  void everyVirtualServerValueSurvivesToBuilder() throws Exception {
    VirtualServer defaults =
        VirtualServer.builder()
            .location(AT)
            .id(new VirtualServerId.Fwmark(1, AddressFamily.INET))
            .name("fwmark:1")
            .forwarding(Forwarding.of(LbKind.NAT))
            .build();
    VirtualServer changed =
        VirtualServer.builder()
            .location(AT)
            .id(new VirtualServerId.Fwmark(2, AddressFamily.INET))
            .name("web")
            .scheduling(
                new Scheduling(
                    Scheduler.FALLBACK,
                    new DirectorSpec.Fallback(true),
                    150,
                    Set.of(SchedulerFlag.OPS),
                    new DirectorLayout(List.of("b1"), List.of(), Optional.of("X-Alt"))))
            .forwarding(Forwarding.of(LbKind.PROXY))
            .persistence(
                new PersistenceSettings(Duration.ofMinutes(5), Optional.of(24), Optional.of("sip")))
            .haSuspend(true)
            .omega(true)
            .quorum(new Quorum(2, 1, Optional.of(script("up")), Optional.of(script("down"))))
            .sorry(
                new SorryPolicy(
                    Optional.of(
                        new SorryServer(
                            AT,
                            new RealServerId(ip("10.0.0.9"), 80),
                            Forwarding.of(LbKind.PROXY),
                            true)),
                    true))
            .realServers(List.of(changedReal()))
            .slowStart(Duration.ofSeconds(30))
            .proxy(new ProxySettings(ProxySettings.Timeouts.NONE, true))
            .accessLogs(
                new AccessLogs(
                    List.of(
                        new AccessLogs.Entry(AT, AccessLogs.Entry.SYSLOG, AccessLogs.Format.JSON))))
            .discovery(
                List.of(
                    new DnsDiscovery(
                        AT,
                        "app.internal",
                        DnsDiscovery.RecordType.A,
                        80,
                        List.of(),
                        DnsDiscovery.DEFAULT_REFRESH,
                        DnsDiscovery.DEFAULT_HOLD,
                        DnsDiscovery.DEFAULT_MAX_SERVERS,
                        false,
                        minimalReal())))
            .announce(true)
            .build();
    assertEveryComponentDiffers(VirtualServer.class, changed, defaults);
    assertThat(changed.toBuilder().build()).isEqualTo(changed);
    assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
  }

  @Test
  void theIdentDefaultsToTheName() throws Exception {
    assertThat(minimalReal().ident()).isEqualTo("10.0.0.2:80");
  }

  private static RealServer minimalReal() throws Exception {
    return RealServer.builder()
        .location(AT)
        .id(new RealServerId(ip("10.0.0.2"), 80))
        .name("10.0.0.2:80")
        .forwarding(Forwarding.of(LbKind.NAT))
        .build();
  }

  private static RealServer changedReal() throws Exception {
    InetAddress a = ip("10.0.0.3");
    return RealServer.builder()
        .location(AT)
        .id(new RealServerId(a, 81))
        .name("b1")
        .ident("node-1")
        .weight(2.5)
        .forwarding(Forwarding.of(LbKind.PROXY))
        .thresholds(new Thresholds(100, 80))
        .inhibitOnFailure(true)
        .notifyScripts(new NotifyScripts(Optional.of(script("up")), Optional.of(script("down"))))
        .checkers(
            List.of(
                new TcpCheck(
                    AT,
                    new CheckerTiming(
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(2),
                        1,
                        Duration.ofSeconds(1),
                        Duration.ZERO,
                        false,
                        false,
                        1),
                    new Endpoint(a, 81, Optional.empty(), 0, Optional.empty(), 0))))
        .checkPort(8081)
        .slowStart(Duration.ofSeconds(10))
        .backend(
            new BackendSettings(
                10,
                ProxyProtocol.sending(ProxyProtocol.Version.V2),
                Optional.of(new BackendTls(AT, "/etc/ca.pem", Optional.of("b1"), "digest")),
                true))
        .tier(1)
        .build();
  }

  private static <T extends Record> void assertEveryComponentDiffers(
      Class<T> type, T changed, T defaults) throws Exception {
    for (RecordComponent c : type.getRecordComponents()) {
      if (c.getType() == Location.class) {
        continue;
      }
      assertThat(c.getAccessor().invoke(changed))
          .as("the test sets %s", c.getName())
          .isNotEqualTo(c.getAccessor().invoke(defaults));
    }
  }

  private static Script script(String arg) {
    return new Script(
        "/bin/echo " + arg, List.of("/bin/echo", arg), Optional.empty(), Optional.empty());
  }

  private static InetAddress ip(String literal) throws Exception {
    return InetAddress.getByName(literal);
  }
}

package io.fairway.daemon.announce;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.apply.VirtualServerStatus;
import java.net.InetAddress;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The announcing rule and the reconcile pass, over routes kept in memory. */
class AnnouncerTest {
  static final InetAddress A = addr("192.0.2.10");
  static final InetAddress B = addr("2001:db8::10");

  /** Routes in memory, changed behind the announcer's back to play drift. */
  static final class MemoryRoutes implements Routes {
    final Set<InetAddress> held = new LinkedHashSet<>();

    @Override
    public Set<InetAddress> list() {
      return Set.copyOf(held);
    }

    @Override
    public void add(InetAddress a) {
      held.add(a);
    }

    @Override
    public void remove(InetAddress a) {
      held.remove(a);
    }
  }

  final MemoryRoutes routes = new MemoryRoutes();
  final Announcer announcer = new Announcer(routes, Map.of("web", A, "api", A, "v6", B));

  static VirtualServerStatus status(String name, boolean init, boolean quorum, boolean sorry) {
    return new VirtualServerStatus(name, List.of(), init, quorum, null, sorry, List.of());
  }

  static List<VirtualServerStatus> all(boolean web, boolean api, boolean v6) {
    return List.of(
        status("web", true, web, false),
        status("api", true, api, false),
        status("v6", true, v6, false));
  }

  @Test
  void anAddressIsAnnouncedWhileEveryServiceOnItCanServe() throws Exception {
    assertThat(announcer.reconcile(all(true, true, true)))
        .containsExactlyInAnyOrder("announced 192.0.2.10", "announced 2001:db8:0:0:0:0:0:10");
    assertThat(routes.held).containsExactlyInAnyOrder(A, B);
    assertThat(announcer.reconcile(all(true, false, true))).containsExactly("withdrew 192.0.2.10");
    assertThat(routes.held).containsExactly(B);
    assertThat(announcer.view())
        .containsEntry("192.0.2.10", false)
        .containsEntry("2001:db8:0:0:0:0:0:10", true);
  }

  @Test
  void aSorryServerInUseStillServes() throws Exception {
    announcer.reconcile(
        List.of(
            status("web", true, false, true),
            status("api", true, true, false),
            status("v6", true, false, false)));
    assertThat(routes.held).containsExactly(A);
  }

  @Test
  void nothingBeforeTheFirstVerdicts() throws Exception {
    announcer.reconcile(
        List.of(
            status("web", false, true, false),
            status("api", true, true, false),
            status("v6", true, true, false)));
    assertThat(routes.held).containsExactly(B);
    announcer.reconcile(List.of());
    assertThat(routes.held).as("a service without status is not ready").isEmpty();
  }

  @Test
  void driftIsRepairedAndStrayRoutesGo() throws Exception {
    announcer.reconcile(all(true, true, true));
    routes.held.remove(A);
    routes.held.add(addr("192.0.2.99"));
    assertThat(announcer.reconcile(all(true, true, true)))
        .containsExactlyInAnyOrder("announced 192.0.2.10", "withdrew 192.0.2.99");
    assertThat(routes.held).containsExactlyInAnyOrder(A, B);
    assertThat(announcer.reconcile(all(true, true, true))).isEmpty();
  }

  @Test
  void offAndStoppingWithdrawEverything() throws Exception {
    announcer.reconcile(all(true, true, true));
    announcer.enabled(false);
    announcer.reconcile(all(true, true, true));
    assertThat(routes.held).isEmpty();
    announcer.enabled(true);
    announcer.reconcile(all(true, true, true));
    assertThat(routes.held).hasSize(2);
    announcer.stopping();
    announcer.reconcile(all(true, true, true));
    assertThat(routes.held).isEmpty();
  }

  @Test
  void aReloadChangesExactlyTheChangedRoutes() throws Exception {
    announcer.reconcile(all(true, true, true));
    announcer.services(Map.of("web", A));
    assertThat(announcer.reconcile(all(true, true, true)))
        .containsExactly("withdrew 2001:db8:0:0:0:0:0:10");
    assertThat(routes.held).containsExactly(A);
  }

  static InetAddress addr(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException(e);
    }
  }
}

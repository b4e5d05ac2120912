package io.fairway.daemon.vrrp;

import io.fairway.daemon.SyncStatus;
import io.fairway.daemon.admin.AdminRequest;
import io.fairway.daemon.admin.AdminResponse;
import io.fairway.daemon.admin.AdminRoutes;
import io.fairway.vrrp.view.InstanceStatus;
import io.fairway.vrrp.view.VrrpSnapshot;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * {@code GET /api/v1/vrrp} (every instance, sync group and counter, and the connection sync daemons
 * that follow them) and {@code GET /api/v1/vrrp/{instance}} in front of the mode's other routes,
 * which answer everything else.
 */
public final class VrrpRoutes implements AdminRoutes {
  private final AdminRoutes next;
  private final Supplier<VrrpSnapshot> snapshot;
  private final Supplier<Optional<SyncStatus>> sync;

  /**
   * @param snapshot the running speaker's snapshot, {@link VrrpSnapshot#empty} when none runs
   */
  public VrrpRoutes(AdminRoutes next, Supplier<VrrpSnapshot> snapshot) {
    this(next, snapshot, Optional::empty);
  }

  /**
   * @param sync the connection sync daemons now ({@code lvs_sync_daemon}), empty without
   */
  public VrrpRoutes(
      AdminRoutes next, Supplier<VrrpSnapshot> snapshot, Supplier<Optional<SyncStatus>> sync) {
    this.next = next;
    this.snapshot = snapshot;
    this.sync = sync;
  }

  @Override
  public CompletableFuture<AdminResponse> handle(AdminRequest r) {
    List<String> p = r.path();
    if (p.size() < 3 || p.size() > 4 || !p.subList(0, 3).equals(List.of("api", "v1", "vrrp"))) {
      return next.handle(r);
    }
    if (!r.method().equals("GET") && !r.method().equals("HEAD")) {
      return done(
          AdminResponse.error(
              405, r.method() + " is not allowed on /" + String.join("/", p) + "; use GET"));
    }
    VrrpSnapshot s = snapshot.get();
    if (p.size() == 3) {
      return done(AdminResponse.json(200, VrrpJson.of(s, sync.get())));
    }
    return done(
        s.instance(p.get(3))
            .map(i -> AdminResponse.json(200, VrrpJson.of(i)))
            .orElseGet(
                () ->
                    AdminResponse.error(
                        404,
                        "unknown vrrp_instance '"
                            + p.get(3)
                            + "'; choices: "
                            + String.join(
                                ", ", s.instances().stream().map(InstanceStatus::name).toList()))));
  }

  private static CompletableFuture<AdminResponse> done(AdminResponse r) {
    return CompletableFuture.completedFuture(r);
  }
}

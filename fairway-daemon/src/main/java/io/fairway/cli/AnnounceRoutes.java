package io.fairway.cli;

import io.fairway.daemon.Daemon;
import io.fairway.daemon.admin.AdminRequest;
import io.fairway.daemon.admin.AdminResponse;
import io.fairway.daemon.admin.AdminRoutes;
import io.fairway.daemon.announce.AnnounceStatus;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code GET /api/v1/announce} (announcing's state) and {@code POST /api/v1/announce/on|off} (the
 * operator withdraws or restores this node's routes) in front of the other routes.
 */
final class AnnounceRoutes implements AdminRoutes {
  private static final List<String> PREFIX = List.of("api", "v1", "announce");

  private final AdminRoutes next;
  private final Daemon daemon;

  AnnounceRoutes(AdminRoutes next, Daemon daemon) {
    this.next = next;
    this.daemon = daemon;
  }

  @Override
  public CompletableFuture<AdminResponse> handle(AdminRequest r) {
    List<String> p = r.path();
    if (p.size() < 3 || p.size() > 4 || !p.subList(0, 3).equals(PREFIX)) {
      return next.handle(r);
    }
    return CompletableFuture.completedFuture(answer(r, p));
  }

  private AdminResponse answer(AdminRequest r, List<String> p) {
    String path = "/" + String.join("/", p);
    if (p.size() == 3) {
      return r.method().equals("GET") || r.method().equals("HEAD")
          ? AdminResponse.json(200, AnnounceStatus.of(daemon.announcing()))
          : AdminResponse.error(405, r.method() + " is not allowed on " + path + "; use GET");
    }
    String action = p.get(3);
    if (!action.equals("on") && !action.equals("off")) {
      return AdminResponse.error(
          404, "no such action '" + action + "' on /api/v1/announce; choices: on, off");
    }
    if (!r.method().equals("POST")) {
      return AdminResponse.error(405, r.method() + " is not allowed on " + path + "; use POST");
    }
    if (!r.authorized()) {
      return AdminResponse.error(
          401,
          "missing or wrong 'Authorization: Bearer TOKEN' (the token is the content of"
              + " --admin-token-file, or of the file fairway run logged at start)");
    }
    AnnounceStatus now = AnnounceStatus.of(daemon.announcing());
    if (!now.configured()) {
      return AdminResponse.error(
          409, "this node announces nothing: no announce_table in global_defs");
    }
    daemon.announce(action.equals("on"));
    return AdminResponse.json(200, AnnounceStatus.of(daemon.announcing()));
  }
}

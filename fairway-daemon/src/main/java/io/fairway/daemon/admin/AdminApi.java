package io.fairway.daemon.admin;

import io.fairway.apply.AdminApplier;
import io.fairway.apply.AdminState;
import io.fairway.apply.ServerAdmin;
import io.fairway.apply.UnknownServerException;
import io.fairway.daemon.Daemon;
import io.fairway.daemon.Durations;
import io.fairway.daemon.Json;
import io.fairway.daemon.admin.ServicesView.RealServerView;
import io.fairway.daemon.admin.ServicesView.VirtualServerView;
import io.fairway.table.TableException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The routes of the admin listener over a running {@link Daemon}.
 *
 * <p>Work runs on a small pool of its own, not on the listener's event loop, so a reload or a slow
 * table read never stops {@code /healthz} or another client from being answered.
 */
public final class AdminApi implements AdminRoutes, AutoCloseable {
  private static final Duration DEFAULT_WAIT = Duration.ofSeconds(30);
  private static final long WAIT_POLL_MS = 100;

  private final Daemon daemon;
  private final Runnable adminChanged;
  private final Supplier<AdminResponse> metrics;
  private final Supplier<String> status;
  private final Supplier<String> reload;
  private final ExecutorService work = Executors.newFixedThreadPool(2, named("fairway-admin-work"));
  private final ScheduledExecutorService waits =
      Executors.newSingleThreadScheduledExecutor(named("fairway-admin-wait"));

  /**
   * @param adminChanged called after every change of admin settings (writes the state file)
   * @param metrics renders {@code GET /metrics}
   */
  public AdminApi(Daemon daemon, Runnable adminChanged, Supplier<AdminResponse> metrics) {
    this(daemon, adminChanged, metrics, daemon::status, daemon::reload);
  }

  /**
   * @param status the text of {@code GET /status} (the daemon's, plus VRRP's when it runs)
   * @param reload what {@code POST /api/v1/reload} does: SIGHUP's path; null when applied, else the
   *     refusal
   */
  public AdminApi(
      Daemon daemon,
      Runnable adminChanged,
      Supplier<AdminResponse> metrics,
      Supplier<String> status,
      Supplier<String> reload) {
    this.daemon = daemon;
    this.adminChanged = adminChanged;
    this.metrics = metrics;
    this.status = status;
    this.reload = reload;
  }

  /** Only {@code GET /status}, for callers that have no daemon admin layer (tests, demo). */
  public static AdminRoutes statusOnly(Supplier<String> status) {
    return r ->
        CompletableFuture.completedFuture(
            r.path().equals(List.of("status")) && r.method().equals("GET")
                ? AdminResponse.text(200, status.get())
                : AdminResponse.error(
                    404, "no route " + r.method() + " /" + String.join("/", r.path())));
  }

  @Override
  public CompletableFuture<AdminResponse> handle(AdminRequest r) {
    List<String> p = r.path();
    if (p.equals(List.of("healthz"))) {
      return done(
          r.method().equals("GET")
              ? AdminResponse.json(200, new Health("ok"))
              : notAllowed(r, "GET"));
    }
    if (p.equals(List.of("api", "v1", "events"))) {
      return done(r.method().equals("GET") ? AdminResponse.events() : notAllowed(r, "GET"));
    }
    return CompletableFuture.supplyAsync(() -> route(r), work).thenCompose(x -> x);
  }

  private CompletableFuture<AdminResponse> route(AdminRequest r) {
    List<String> p = r.path();
    boolean get = r.method().equals("GET") || r.method().equals("HEAD");
    try {
      if (p.isEmpty()) {
        return done(get ? StatusPage.render(services(), r.readsNeedToken()) : notAllowed(r, "GET"));
      }
      if (p.equals(List.of("status"))) {
        return done(get ? AdminResponse.text(200, status.get()) : notAllowed(r, "GET"));
      }
      if (p.equals(List.of("readyz"))) {
        if (!get) {
          return done(notAllowed(r, "GET"));
        }
        return done(
            daemon.ready()
                ? AdminResponse.json(200, new Ready(true))
                : AdminResponse.json(503, new Ready(false)));
      }
      if (p.equals(List.of("metrics"))) {
        return done(get ? metrics.get() : notAllowed(r, "GET"));
      }
      if (p.size() >= 2 && p.get(0).equals("api") && p.get(1).equals("v1")) {
        return api(r, p.subList(2, p.size()), get);
      }
      if (p.equals(List.of("static", "status.js")) || p.equals(List.of("static", "status.css"))) {
        return done(get ? StatusPage.asset(p.get(1)) : notAllowed(r, "GET"));
      }
      return done(notFound(r));
    } catch (RuntimeException e) {
      return done(AdminResponse.error(500, "internal error: " + e.getMessage()));
    }
  }

  private CompletableFuture<AdminResponse> api(AdminRequest r, List<String> p, boolean get) {
    if (p.equals(List.of("reload"))) {
      return done(reload(r));
    }
    if (!get && !r.authorized()) {
      // Before any lookup: a 404 would list the names to someone without the token.
      return done(unauthorized());
    }
    if (p.equals(List.of("vrrp")) && get) {
      // Without a VRRP speaker in front (VrrpRoutes answers it when there is one): no instance,
      // so the status page reads one shape in every mode instead of an error.
      return done(AdminResponse.json(200, java.util.Map.of("instances", List.of())));
    }
    if (p.equals(List.of("announce")) && get) {
      // Likewise without announcing in front (AnnounceRoutes answers it when there is).
      return done(AdminResponse.json(200, io.fairway.daemon.announce.AnnounceStatus.of(null)));
    }
    if (p.isEmpty() || !p.get(0).equals("services")) {
      return done(notFound(r));
    }
    if (p.size() == 1) {
      return done(get ? AdminResponse.json(200, services()) : notAllowed(r, "GET"));
    }
    VirtualServerView vs =
        services().stream().filter(v -> v.name().equals(p.get(1))).findFirst().orElse(null);
    if (vs == null) {
      List<VirtualServerView> all = services();
      return done(
          AdminResponse.error(
              404,
              "unknown virtual server '"
                  + p.get(1)
                  + "'"
                  + (all.isEmpty()
                      ? ": there is no virtual_server in this configuration"
                      : "; choices: "
                          + String.join(
                              ", ", all.stream().map(VirtualServerView::name).toList()))));
    }
    return virtualServer(r, p, get, vs);
  }

  /** {@code POST /api/v1/reload}: SIGHUP's path. */
  private AdminResponse reload(AdminRequest r) {
    if (!r.method().equals("POST")) {
      return notAllowed(r, "POST");
    }
    if (!r.authorized()) {
      return unauthorized();
    }
    String refused = reload.get();
    adminChanged.run();
    return refused == null
        ? AdminResponse.json(200, new Reload("ok", null))
        : AdminResponse.json(422, new Reload("refused", refused));
  }

  /** {@code /api/v1/services/VS} and below: the virtual server, its real servers, their actions. */
  private CompletableFuture<AdminResponse> virtualServer(
      AdminRequest r, List<String> p, boolean get, VirtualServerView vs) {
    if (p.size() == 2) {
      return done(get ? AdminResponse.json(200, vs) : notAllowed(r, "GET"));
    }
    if (!p.get(2).equals("servers") || p.size() > 5) {
      return done(notFound(r));
    }
    if (p.size() == 3) {
      return done(get ? AdminResponse.json(200, vs.servers()) : notAllowed(r, "GET"));
    }
    RealServerView rs =
        vs.servers().stream().filter(s -> s.name().equals(p.get(3))).findFirst().orElse(null);
    if (rs == null) {
      return done(
          AdminResponse.error(
              404,
              "unknown real server '"
                  + p.get(3)
                  + "' in "
                  + vs.name()
                  + "; choices: "
                  + String.join(", ", vs.servers().stream().map(RealServerView::name).toList())));
    }
    if (p.size() == 4) {
      return done(get ? AdminResponse.json(200, rs) : notAllowed(r, "GET"));
    }
    return change(r, vs, rs, p.get(4));
  }

  /** {@code POST .../servers/RS/state} or {@code .../weight}: an operator's change. */
  private CompletableFuture<AdminResponse> change(
      AdminRequest r, VirtualServerView vs, RealServerView rs, String action) {
    if (!action.equals("state") && !action.equals("weight")) {
      return done(notFound(r));
    }
    if (!r.method().equals("POST")) {
      return done(notAllowed(r, "POST"));
    }
    if (!r.authorized()) {
      return done(unauthorized());
    }
    try {
      return action.equals("state")
          ? setState(vs.name(), rs.name(), Json.read(r.body(), StateBody.class))
          : setWeight(vs.name(), rs.name(), Json.read(r.body(), WeightBody.class));
    } catch (IllegalArgumentException e) {
      return done(AdminResponse.error(400, e.getMessage()));
    }
  }

  /** {@code {"state":"drain"|"maint"|"ready","wait":true,"timeout":"30s"}}. */
  record StateBody(
      String state,
      @com.fasterxml.jackson.annotation.JsonProperty("wait") Boolean waitIdle,
      String timeout) {}

  /** {@code {"weight":N}}. */
  record WeightBody(Integer weight) {}

  record Health(String status) {}

  record Ready(boolean ready) {}

  record Reload(String result, @Nullable String reason) {}

  record Changed(ServerAdmin admin, @Nullable RealServerView server) {}

  private CompletableFuture<AdminResponse> setState(String vs, String rs, StateBody body) {
    AdminState state = state(body.state());
    if (state == null) {
      return done(
          AdminResponse.error(
              400,
              "state must be one of drain, maint, ready; got "
                  + (body.state() == null ? "nothing" : "'" + body.state() + "'")));
    }
    boolean wait = Boolean.TRUE.equals(body.waitIdle());
    if (wait && state != AdminState.DRAIN) {
      return done(AdminResponse.error(400, "wait is only for drain"));
    }
    Duration timeout = DEFAULT_WAIT;
    if (body.timeout() != null) {
      try {
        timeout = Durations.parse(body.timeout());
      } catch (IllegalArgumentException e) {
        return done(AdminResponse.error(400, "timeout: " + e.getMessage()));
      }
    }
    AdminApplier admin = daemon.admin();
    try {
      admin.setState(vs, rs, state);
    } catch (TableException e) {
      return done(AdminResponse.error(503, "the table refused it: " + e.getMessage()));
    } catch (UnknownServerException e) {
      return done(AdminResponse.error(404, e.getMessage()));
    }
    adminChanged.run();
    if (!wait) {
      return done(changed(vs, rs, 200));
    }
    return waitIdle(vs, rs, timeout);
  }

  /** The admin state a body's {@code state} names, or null. */
  private static @Nullable AdminState state(@Nullable String name) {
    return switch (name == null ? "" : name) {
      case "drain" -> AdminState.DRAIN;
      case "maint" -> AdminState.MAINT;
      case "ready" -> AdminState.NONE;
      default -> null;
    };
  }

  /**
   * {@code "wait":true}: answers once the drained server has no active connection, or 408 after
   * {@code timeout}; polled off the work pool so a long wait holds no worker.
   */
  private CompletableFuture<AdminResponse> waitIdle(String vs, String rs, Duration timeout) {
    CompletableFuture<AdminResponse> answer = new CompletableFuture<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    Duration t = timeout;
    Runnable[] poll = new Runnable[1];
    poll[0] =
        () -> {
          try {
            RealServerView now = server(vs, rs);
            if (now == null || now.activeConnections() == 0) {
              answer.complete(changed(vs, rs, 200));
            } else if (System.nanoTime() - deadline >= 0) {
              answer.complete(
                  AdminResponse.error(
                      408,
                      vs
                          + " "
                          + rs
                          + " still has "
                          + now.activeConnections()
                          + " active connections after "
                          + Durations.format(t)
                          + " (drained, not idle)"));
            } else {
              waits.schedule(poll[0], WAIT_POLL_MS, TimeUnit.MILLISECONDS);
            }
          } catch (RuntimeException e) {
            answer.completeExceptionally(e);
          }
        };
    waits.execute(poll[0]);
    return answer;
  }

  private CompletableFuture<AdminResponse> setWeight(String vs, String rs, WeightBody body) {
    if (body.weight() == null || body.weight() < 0) {
      return done(AdminResponse.error(400, "weight must be an integer >= 0"));
    }
    try {
      daemon.admin().setAdminWeight(vs, rs, body.weight());
    } catch (TableException e) {
      return done(AdminResponse.error(503, "the table refused it: " + e.getMessage()));
    } catch (UnknownServerException e) {
      return done(AdminResponse.error(404, e.getMessage()));
    }
    adminChanged.run();
    return done(changed(vs, rs, 200));
  }

  private AdminResponse changed(String vs, String rs, int status) {
    try {
      return AdminResponse.json(status, new Changed(daemon.admin().admin(vs, rs), server(vs, rs)));
    } catch (UnknownServerException e) {
      return AdminResponse.error(404, e.getMessage());
    }
  }

  private @Nullable RealServerView server(String vs, String rs) {
    return services().stream()
        .filter(v -> v.name().equals(vs))
        .flatMap(v -> v.servers().stream())
        .filter(s -> s.name().equals(rs))
        .findFirst()
        .orElse(null);
  }

  /** The runtime view of every virtual server. */
  public List<VirtualServerView> services() {
    return ServicesView.of(daemon);
  }

  private static AdminResponse notFound(AdminRequest r) {
    return AdminResponse.error(
        404,
        "no route "
            + r.method()
            + " /"
            + String.join("/", r.path())
            + "; see /api/v1/services, /api/v1/events, /api/v1/reload, /metrics, /healthz, /readyz");
  }

  private static AdminResponse notAllowed(AdminRequest r, String allowed) {
    return AdminResponse.error(
        405, r.method() + " is not allowed on /" + String.join("/", r.path()) + "; use " + allowed);
  }

  private static AdminResponse unauthorized() {
    return AdminResponse.error(
        401,
        "missing or wrong 'Authorization: Bearer TOKEN' (the token is the content of"
            + " --admin-token-file, or of the file fairway run logged at start)");
  }

  private static CompletableFuture<AdminResponse> done(AdminResponse r) {
    return CompletableFuture.completedFuture(r);
  }

  private static java.util.concurrent.ThreadFactory named(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public void close() {
    work.shutdownNow();
    waits.shutdownNow();
  }
}

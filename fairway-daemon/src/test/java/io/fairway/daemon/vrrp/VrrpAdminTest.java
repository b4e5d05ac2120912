package io.fairway.daemon.vrrp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.daemon.Json;
import io.fairway.daemon.Promtool;
import io.fairway.daemon.admin.AdminRequest;
import io.fairway.daemon.admin.AdminResponse;
import io.fairway.vrrp.state.State;
import io.fairway.vrrp.view.DropKind;
import io.fairway.vrrp.view.GroupStatus;
import io.fairway.vrrp.view.InstanceStatus;
import io.fairway.vrrp.view.VrrpSnapshot;
import io.fairway.vrrp.view.VrrpTransition;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The VRRP routes, metrics and events over a snapshot given by hand (no sockets, no root). */
class VrrpAdminTest {
  @TempDir Path dir;

  static VrrpSnapshot snapshot() throws Exception {
    InstanceStatus vi1 =
        new InstanceStatus(
            "VI_1",
            "eth0",
            51,
            2,
            State.MASTER,
            140,
            150,
            Optional.of(InetAddress.getByName("10.0.0.1")),
            140,
            Instant.parse("2026-12-01T20:00:00Z"),
            List.of(InetAddress.getByName("10.0.0.100")),
            Optional.of("G"),
            42,
            0,
            Map.of(State.BACKUP, 1L, State.MASTER, 1L));
    InstanceStatus vi2 =
        new InstanceStatus(
            "VI_2",
            "eth0",
            52,
            3,
            State.BACKUP,
            100,
            100,
            Optional.empty(),
            0,
            Instant.parse("2026-12-01T20:00:01Z"),
            List.of(),
            Optional.empty(),
            0,
            7,
            Map.of(State.BACKUP, 1L));
    return new VrrpSnapshot(
        List.of(vi1, vi2),
        List.of(new GroupStatus("G", State.MASTER, List.of("VI_1"))),
        9,
        Map.of(DropKind.CHECKSUM, 2L, DropKind.TTL, 1L));
  }

  static AdminRequest get(String... path) {
    return new AdminRequest("GET", List.of(path), Map.of(), new byte[0], false);
  }

  @Test
  void theApiShowsEveryInstanceAndPassesTheRestOn() throws Exception {
    VrrpSnapshot s = snapshot();
    VrrpRoutes routes =
        new VrrpRoutes(
            r -> CompletableFuture.completedFuture(AdminResponse.text(200, "next")), () -> s);
    AdminResponse all = routes.handle(get("api", "v1", "vrrp")).get();
    assertThat(all.status()).isEqualTo(200);
    JsonNode n = Json.mapper().readTree(all.body());
    JsonNode vi1 = n.get("instances").get(0);
    assertThat(vi1.get("state").asText()).isEqualTo("master");
    assertThat(vi1.get("priority").asInt()).isEqualTo(140);
    assertThat(vi1.get("base_priority").asInt()).isEqualTo(150);
    assertThat(vi1.get("master").asText()).isEqualTo("10.0.0.1");
    assertThat(vi1.get("since").asText()).isEqualTo("2026-12-01T20:00:00Z");
    assertThat(vi1.get("sync_group").asText()).isEqualTo("G");
    assertThat(vi1.get("transitions").toString())
        .isEqualTo("{\"backup\":1,\"master\":1,\"fault\":0,\"stop\":0}");
    assertThat(n.get("instances").get(1).get("master").isNull()).isTrue();
    assertThat(n.get("sync_groups").get(0).get("state").asText()).isEqualTo("master");
    assertThat(n.get("errors").get("checksum").asLong()).isEqualTo(2);
    assertThat(n.get("errors").get("auth").asLong()).isZero();
    assertThat(n.get("packets_received").asLong()).isEqualTo(9);

    AdminResponse one = routes.handle(get("api", "v1", "vrrp", "VI_2")).get();
    assertThat(Json.mapper().readTree(one.body()).get("adverts_received").asLong()).isEqualTo(7);
    AdminResponse unknown = routes.handle(get("api", "v1", "vrrp", "VI_9")).get();
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(new String(unknown.body(), StandardCharsets.UTF_8))
        .contains("unknown vrrp_instance 'VI_9'; choices: VI_1, VI_2");
    AdminResponse post =
        routes
            .handle(
                new AdminRequest("POST", List.of("api", "v1", "vrrp"), Map.of(), new byte[0], true))
            .get();
    assertThat(post.status()).isEqualTo(405);
    assertThat(
            new String(
                routes.handle(get("api", "v1", "services")).get().body(), StandardCharsets.UTF_8))
        .isEqualTo("next");
  }

  @Test
  void theSyncDaemonsAreInTheVrrpJsonTypedAndNullWithout() throws Exception {
    VrrpSnapshot s = snapshot();
    io.fairway.plan.Plan.Sync plan =
        new io.fairway.plan.Plan.Sync(
            "k.conf:2", "eth1", 51, 0, 0, 2, Optional.empty(), Optional.of("VI_1"));
    io.fairway.table.SyncDaemon running =
        new io.fairway.table.SyncDaemon(
            io.fairway.table.SyncDaemon.Role.MASTER,
            "eth1",
            51,
            1472,
            8848,
            2,
            java.net.InetAddress.getByName("224.0.0.81"));
    io.fairway.daemon.SyncStatus status =
        new io.fairway.daemon.SyncStatus(
            plan,
            true,
            Optional.of(State.MASTER),
            List.of(io.fairway.table.SyncDaemon.Role.MASTER),
            List.of(running),
            Optional.empty(),
            Optional.of("lvs_sync_daemon: refused (EINVAL)"));
    VrrpRoutes routes =
        new VrrpRoutes(
            r -> CompletableFuture.completedFuture(AdminResponse.text(200, "next")),
            () -> s,
            () -> Optional.of(status));
    JsonNode d =
        Json.mapper()
            .readTree(routes.handle(get("api", "v1", "vrrp")).get().body())
            .get("lvs_sync_daemon");
    assertThat(d.toString())
        .isEqualTo(
            "{\"where\":\"k.conf:2\",\"active\":true,\"interface_name\":\"eth1\",\"sync_id\":51,"
                + "\"max_len\":0,\"port\":0,\"ttl\":2,\"group\":null,\"follows\":\"VI_1\","
                + "\"instance_state\":\"master\",\"wants\":[\"master\"],\"kernel\":[{\"role\":"
                + "\"master\",\"interface_name\":\"eth1\",\"sync_id\":51,\"max_len\":1472,"
                + "\"port\":8848,\"ttl\":2,\"group\":\"224.0.0.81\"}],\"kernel_error\":null,"
                + "\"last_error\":\"lvs_sync_daemon: refused (EINVAL)\"}");
    // The userspace plane: configured, not started.
    VrrpRoutes userspace =
        new VrrpRoutes(
            r -> CompletableFuture.completedFuture(AdminResponse.text(200, "next")),
            () -> s,
            () -> Optional.of(io.fairway.daemon.SyncStatus.inactive(plan)));
    JsonNode u =
        Json.mapper()
            .readTree(userspace.handle(get("api", "v1", "vrrp")).get().body())
            .get("lvs_sync_daemon");
    assertThat(u.get("active").asBoolean()).isFalse();
    assertThat(u.get("wants")).isEmpty();
    assertThat(u.get("kernel")).isEmpty();
    assertThat(u.get("instance_state").isNull()).isTrue();
    // Without lvs_sync_daemon: null, the field still there.
    VrrpRoutes none =
        new VrrpRoutes(
            r -> CompletableFuture.completedFuture(AdminResponse.text(200, "")), () -> s);
    JsonNode n = Json.mapper().readTree(none.handle(get("api", "v1", "vrrp")).get().body());
    assertThat(n.has("lvs_sync_daemon")).isTrue();
    assertThat(n.get("lvs_sync_daemon").isNull()).isTrue();
  }

  static String scrape(PrometheusRegistry registry) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create()
        .write(out, registry.scrape(), io.prometheus.metrics.config.EscapingScheme.DEFAULT);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void metricsFollowTheSnapshotAndPassPromtool() throws Exception {
    VrrpSnapshot s = snapshot();
    AtomicReference<VrrpSnapshot> now = new AtomicReference<>(s);
    PrometheusRegistry registry = new PrometheusRegistry();
    VrrpMetrics.register(registry, now::get);
    String text = scrape(registry);
    assertThat(text)
        .contains("fairway_vrrp_state{instance=\"VI_1\",state=\"master\"} 1.0")
        .contains("fairway_vrrp_state{instance=\"VI_1\",state=\"backup\"} 0.0")
        .contains("fairway_vrrp_priority{instance=\"VI_1\"} 140.0")
        .contains("fairway_vrrp_transitions_total{instance=\"VI_1\",to=\"master\"} 1.0")
        .contains("fairway_vrrp_adverts_sent_total{instance=\"VI_1\"} 42.0")
        .contains("fairway_vrrp_adverts_received_total{instance=\"VI_2\"} 7.0")
        .contains("fairway_vrrp_errors_total{kind=\"checksum\"} 2.0")
        .contains("fairway_vrrp_errors_total{kind=\"auth\"} 0.0")
        .contains("fairway_vrrp_sync_group_state{state=\"master\",sync_group=\"G\"} 1.0")
        .contains("fairway_vrrp_packets_received_total 9.0")
        .contains("fairway_vrrp_state_since_timestamp_seconds{instance=\"VI_1\"} 1.7961552E9");
    Promtool.assertClean(text, dir);
    // Nothing runs (a file without VRRP, or every instance reloaded away): still clean.
    now.set(VrrpSnapshot.empty());
    String empty = scrape(registry);
    assertThat(empty).doesNotContain("instance=");
    Promtool.assertClean(empty, dir);
  }

  @Test
  void aTransitionIsOneEventWithALineForTheCli() throws Exception {
    VrrpEvents.Event e =
        VrrpEvents.of(
            new VrrpTransition(
                Instant.parse("2026-12-01T20:00:00.123456Z"),
                false,
                "VI_1",
                State.BACKUP,
                State.MASTER,
                150,
                Optional.of(InetAddress.getByName("10.0.0.1"))));
    assertThat(Json.string(e))
        .isEqualTo(
            "{\"time\":\"2026-12-01T20:00:00.123Z\",\"kind\":"
                + "\"vrrp_master\",\"instance\":\"VI_1\",\"sync_group\":null,\"from\":\"backup\",\"to\":"
                + "\"master\",\"priority\":150,\"master\":\"10.0.0.1\",\"reason\":\"vrrp_instance VI_1:"
                + " BACKUP -> MASTER (priority 150, master 10.0.0.1)\"}");
    VrrpEvents.Event g =
        VrrpEvents.of(
            new VrrpTransition(
                Instant.EPOCH, true, "G", State.MASTER, State.FAULT, 0, Optional.empty()));
    assertThat(g.kind()).isEqualTo("vrrp_fault");
    assertThat(g.syncGroup()).isEqualTo("G");
    assertThat(g.instance()).isNull();
    assertThat(g.reason()).isEqualTo("vrrp_sync_group G: MASTER -> FAULT");
  }
}

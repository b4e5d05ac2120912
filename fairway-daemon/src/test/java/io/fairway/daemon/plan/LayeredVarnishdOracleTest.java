package io.fairway.daemon.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.testkit.Varnishd;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Layered directors and a shared shard_param, through the running HTTP proxy ({@code fairway run
 * --userspace} in this JVM), against a real varnishd whose VCL declares the same directors: every
 * request goes to both, and both must answer from the same backend (the backends answer with their
 * name). For the fallback varnishd really fetches, since it resolves its shards only at fetch time
 * ({@code resolve=LAZY}), so its choice is seen where it lands; the shard services resolve in
 * {@code vcl_recv}, where varnishd names its choice for 16 keys per request.
 *
 * <ul>
 *   <li>{@code fb}: a fallback over two shards; the first shard's three members are down (their
 *       {@code /health} answers 503: Fairway's HTTP_GET checkers take them out, varnishd's probes
 *       mark them sick), so every request goes through the second shard, itself with a member down.
 *   <li>{@code pa}, {@code pb}: two shard services that associate one shard_param ({@code by URL,
 *       healthy ALL, alt 1}); {@code pb} sets its own {@code healthy CHOSEN} and replicas. Requests
 *       carry {@code X-Alt} 0..3 or none: per request, alt overrides the set's, as {@code
 *       shard.backend(alt=std.integer(req.http.X-Alt))} does in the VCL.
 * </ul>
 */
class LayeredVarnishdOracleTest {
  static final int REQUESTS = 5_000;
  static final int BACKENDS = 12;
  static final Set<String> SICK = Set.of("b0", "b1", "b2", "b5", "b9");
  static final List<String> SHARD_A = List.of("b0", "b1", "b2");
  static final List<String> SHARD_B = List.of("b3", "b4", "b5", "b6");
  static final List<String> PARAM_MEMBERS = List.of("b5", "b6", "b7", "b8", "b9", "b10", "b11");
  static final List<String> SETUPS = List.of("fb", "pa", "pb");
  static final int CLIENTS = 6;
  static final int BATCH = 16;

  static Backends backends;
  static Varnishd varnishd;
  static UserspaceDaemon fairway;

  static Stream<String> setups() {
    return SETUPS.stream();
  }

  static List<String> members(String setup) {
    if (setup.equals("fb")) {
      List<String> all = new ArrayList<>(SHARD_A);
      all.addAll(SHARD_B);
      return all;
    }
    return PARAM_MEMBERS;
  }

  @BeforeAll
  static void start(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path bin = Varnishd.require();
    backends = new Backends(BACKENDS, SICK);
    varnishd = Varnishd.start(bin, dir, vcl(), VarnishOracle.PING);
    fairway = new UserspaceDaemon(dir.resolve("keepalived.conf"), conf());
    await("checkers and probes settled")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(LayeredVarnishdOracleTest::settled);
  }

  static boolean settled() throws Exception {
    for (String s : SETUPS) {
      for (String m : members(s)) {
        if (fairway.daemon.applier().present(s, m) == SICK.contains(m)) {
          return false;
        }
      }
    }
    List<Boolean> want = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      want.add(!SICK.contains("b" + i));
    }
    return VarnishOracle.health(varnishd).equals(want);
  }

  @AfterAll
  static void stop() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    if (varnishd != null) {
      varnishd.close();
    }
    if (backends != null) {
      backends.close();
    }
  }

  /** One request: its URL and its X-Alt (null: none). */
  record Ask(String url, String alt) {}

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void everyRequestReachesTheBackendVarnishdChose(String setup) throws Exception {
    Random rnd = new Random(setup.hashCode());
    List<Ask> asks = new ArrayList<>(REQUESTS);
    for (int i = 0; i < REQUESTS; i++) {
      String url = "/obj/" + Long.toHexString(rnd.nextLong()) + "?v=" + rnd.nextInt(1000);
      int a = rnd.nextInt(5);
      asks.add(new Ask(url, setup.equals("fb") || a == 4 ? null : Integer.toString(a)));
    }
    int port = fairway.port(setup);
    Map<Ask, String> viaFairway = new ConcurrentHashMap<>();
    Map<Ask, String> viaVarnish = new ConcurrentHashMap<>();
    // Fairway and varnishd are asked at the same time, each by CLIENTS keep-alive clients. The
    // fallback needs a real fetch through varnishd (it resolves its shards only then); the shard
    // services resolve in vcl_recv, so varnishd answers BATCH keys per request without fetching.
    ExecutorService clients = Executors.newFixedThreadPool(2 * CLIENTS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        List<Ask> mine = asks.subList(c * REQUESTS / CLIENTS, (c + 1) * REQUESTS / CLIENTS);
        HttpClient client =
            HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        done.add(
            clients.submit(
                () -> {
                  for (Ask a : mine) {
                    viaFairway.put(a, body(client, port, a, null));
                  }
                  return null;
                }));
        done.add(
            clients.submit(
                () -> {
                  if (setup.equals("fb")) {
                    for (Ask a : mine) {
                      viaVarnish.put(a, body(client, varnishd.port(), a, setup));
                    }
                  } else {
                    for (int i = 0; i < mine.size(); i += BATCH) {
                      List<Ask> batch = mine.subList(i, Math.min(mine.size(), i + BATCH));
                      Map<String, String> h = new HashMap<>();
                      h.put("x-mode", setup);
                      for (int k = 0; k < batch.size(); k++) {
                        h.put("k" + k, batch.get(k).url());
                        if (batch.get(k).alt() != null) {
                          h.put("a" + k, batch.get(k).alt());
                        }
                      }
                      HttpResponse<String> r = varnishd.ask(h);
                      for (int k = 0; k < batch.size(); k++) {
                        viaVarnish.put(
                            batch.get(k), r.headers().firstValue("r" + k).orElse("none"));
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      clients.shutdownNow();
    }
    int agree = 0;
    List<String> wrong = new ArrayList<>();
    Map<String, Integer> spread = new HashMap<>();
    for (Ask a : asks) {
      String mine = viaFairway.get(a);
      spread.merge(mine, 1, Integer::sum);
      if (mine.equals(viaVarnish.get(a))) {
        agree++;
      } else if (wrong.size() < 5) {
        wrong.add(a + ": fairway " + mine + ", varnishd " + viaVarnish.get(a));
      }
    }
    assertThat(wrong).as(setup + ": " + agree + " of " + REQUESTS + " agree").isEmpty();
    // Not a degenerate setup: the requests spread over exactly the servers that are up (for fb,
    // the second shard's).
    Set<String> up = new TreeSet<>(setup.equals("fb") ? SHARD_B : PARAM_MEMBERS);
    up.removeAll(SICK);
    assertThat(new TreeSet<>(spread.keySet())).isEqualTo(up);
  }

  static String body(HttpClient client, int port, Ask a, String svc) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + a.url()))
            .timeout(Duration.ofSeconds(20));
    if (a.alt() != null) {
      b.header("X-Alt", a.alt());
    }
    if (svc != null) {
      b.header("x-svc", svc);
    }
    HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return r.statusCode() == 200 ? r.body() : "HTTP " + r.statusCode();
  }

  static String realServers(List<String> names) {
    StringBuilder c = new StringBuilder();
    for (String m : names) {
      c.append("  real_server 127.0.0.1 ")
          .append(backends.port(m))
          .append(" {\n")
          .append("    name ")
          .append(m)
          .append('\n')
          .append(VarnishOracle.HTTP_GET)
          .append("  }\n");
    }
    return c.toString();
  }

  static String conf() throws Exception {
    return "shard_param shared {\n  by URL\n  healthy ALL\n  alt 1\n}\n"
        + "virtual_server 127.0.0.1 "
        + UserspaceDaemon.freePort()
        + " {\n  name fb\n"
        + "  delay_loop 1\n  lb_algo fallback\n  lb_kind HTTP\n  protocol TCP\n"
        + "  members sA sB\n"
        + "  director sA {\n    lb_algo shard\n    shard {\n      by URL\n    }\n"
        + "    members "
        + String.join(" ", SHARD_A)
        + "\n  }\n"
        + "  director sB {\n    lb_algo shard\n    shard {\n      by URL\n    }\n"
        + "    members "
        + String.join(" ", SHARD_B)
        + "\n  }\n"
        + realServers(members("fb"))
        + "}\n"
        + "virtual_server 127.0.0.1 "
        + UserspaceDaemon.freePort()
        + " {\n  name pa\n"
        + "  delay_loop 1\n  lb_algo shard\n  lb_kind HTTP\n  protocol TCP\n"
        + "  alt_header X-Alt\n  shard {\n    associate shared\n  }\n"
        + realServers(PARAM_MEMBERS)
        + "}\n"
        + "virtual_server 127.0.0.1 "
        + UserspaceDaemon.freePort()
        + " {\n  name pb\n"
        + "  delay_loop 1\n  lb_algo shard\n  lb_kind HTTP\n  protocol TCP\n"
        + "  alt_header X-Alt\n  shard {\n    associate shared\n    healthy CHOSEN\n"
        + "    replicas 25\n  }\n"
        + realServers(PARAM_MEMBERS)
        + "}\n";
  }

  static String vcl() {
    StringBuilder v = new StringBuilder("vcl 4.1;\nimport directors;\nimport std;\n\n");
    v.append(VarnishOracle.PROBE);
    for (int i = 0; i < BACKENDS; i++) {
      v.append("backend b")
          .append(i)
          .append(" { .host = \"127.0.0.1\"; .port = \"")
          .append(backends.port("b" + i))
          .append("\"; .probe = health; }\n");
    }
    v.append("\nsub vcl_init {\n");
    v.append("  new purl = directors.shard_param();\n  purl.set(by=URL);\n");
    v.append(
        "  new shared = directors.shard_param();\n"
            + "  shared.set(by=URL, healthy=ALL, alt=1);\n");
    shard(v, "sA", SHARD_A, "", "purl");
    shard(v, "sB", SHARD_B, "", "purl");
    // In vcl_init .backend() resolves LAZY: the fallback asks the shard at fetch time.
    v.append(
        "  new fb = directors.fallback();\n  fb.add_backend(sA.backend());\n"
            + "  fb.add_backend(sB.backend());\n");
    shard(v, "pa", PARAM_MEMBERS, "", "shared");
    shard(v, "pb", PARAM_MEMBERS, "replicas=25", "shared");
    v.append("}\n\nsub vcl_recv {\n");
    List<String> probed = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      probed.add("b" + i);
    }
    v.append(VarnishOracle.recvPingAndHealth(probed));
    v.append(
        "  if (req.http.x-svc == \"fb\") {\n    set req.backend_hint = fb.backend();\n"
            + "    return (pass);\n  }\n");
    // The shard services answer in vcl_recv: each key becomes req.url in turn (by=URL hashes
    // req.url in client context) and its choice a response header.
    for (String[] s : new String[][] {{"pa", ""}, {"pb", "healthy=CHOSEN"}}) {
      String own = s[1];
      v.append("  if (req.http.x-mode == \"").append(s[0]).append("\") {\n");
      for (int k = 0; k < BATCH; k++) {
        v.append("    if (req.http.k")
            .append(k)
            .append(") {\n      set req.url = req.http.k")
            .append(k)
            .append(";\n      if (req.http.a")
            .append(k)
            .append(") {\n")
            .append("        set req.http.r")
            .append(k)
            .append(" = \"\" + ")
            .append(s[0])
            .append(".backend(")
            .append(own.isEmpty() ? "" : own + ", ")
            .append("alt=std.integer(req.http.a")
            .append(k)
            .append(", 0));\n      } else {\n")
            .append("        set req.http.r")
            .append(k)
            .append(" = \"\" + ")
            .append(s[0])
            .append(".backend(")
            .append(own)
            .append(");\n      }\n    }\n");
      }
      v.append("    return (synth(200));\n  }\n");
    }
    v.append("  return (synth(404));\n}\n\n").append(Varnishd.synthAnswers(BATCH));
    return v.toString();
  }

  private static void shard(
      StringBuilder v, String name, List<String> members, String reconfigure, String param) {
    v.append("  new ").append(name).append(" = directors.shard();\n");
    for (String m : members) {
      v.append("  ").append(name).append(".add_backend(").append(m).append(");\n");
    }
    v.append("  ").append(name).append(".reconfigure(").append(reconfigure).append(");\n");
    v.append("  ").append(name).append(".associate(").append(param).append(".use());\n");
  }
}

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Through the running HTTP proxy ({@code fairway run --userspace} in this JVM), against a real
 * varnishd with the same backends, names, idents, weights, replicas and health states in its VCL:
 * every request must reach the backend varnishd's director chose for its key. The backends answer
 * with their name, so what is compared is where the request actually went.
 *
 * <p>Health is real on both sides: b2, b5 and b7 answer {@code /health} with 503, Fairway's
 * HTTP_GET checkers take them out of the table and varnishd's probes mark them sick.
 */
class ProxyVarnishdOracleTest {
  static final int REQUESTS = 5_000;
  static final int BACKENDS = 10;
  static final Set<String> SICK = Set.of("b2", "b5", "b7");
  static final int BATCH = 16;

  /** A real server: name, ident (null: the name), weight. */
  record M(String name, String ident, double weight) {}

  /**
   * One virtual server and its VCL director.
   *
   * @param by URL or HEADER (X-Key)
   * @param replicas shard replicas, 0 for the default
   * @param checked HTTP_GET checks / probes, so the sick ones are down
   */
  record Setup(
      String name, String algo, String by, int replicas, List<M> members, boolean checked) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<M> plain() {
    List<M> l = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      l.add(new M("b" + i, null, 1));
    }
    return l;
  }

  static List<M> identsAndWeights() {
    double[] w = {1, 2, 1.5, 0.5, 3, 1, 2.5, 1, 0.75, 4};
    List<M> l = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      l.add(new M("b" + i, i % 3 == 0 ? "node-" + (i * 7) : null, w[i]));
    }
    return l;
  }

  static final List<Setup> SETUPS =
      List.of(
          new Setup("shard_url", "shard", "URL", 0, plain(), false),
          new Setup("shard_header", "shard", "HEADER", 0, plain(), false),
          new Setup("shard_idents", "shard", "URL", 25, identsAndWeights(), false),
          new Setup("hash_weighted", "hash", "URL", 0, identsAndWeights(), false),
          new Setup("shard_idents_down", "shard", "HEADER", 25, identsAndWeights(), true),
          new Setup("hash_down", "hash", "HEADER", 0, identsAndWeights(), true));

  static Stream<Setup> setups() {
    return SETUPS.stream();
  }

  static Backends backends;
  static Varnishd varnishd;
  static UserspaceDaemon fairway;

  @BeforeAll
  static void start(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path bin = Varnishd.require();
    backends = new Backends(BACKENDS, SICK);
    varnishd = Varnishd.start(bin, dir, vcl(), VarnishOracle.PING);
    fairway = new UserspaceDaemon(dir.resolve("keepalived.conf"), conf());
    // Both sides agree on health before anything is compared: Fairway's checkers took the sick
    // servers out, varnishd's probes marked exactly them sick.
    await("checkers and probes settled")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(ProxyVarnishdOracleTest::settled);
  }

  static boolean settled() throws Exception {
    for (Setup s : SETUPS) {
      if (!s.checked()) {
        continue;
      }
      for (M m : s.members()) {
        boolean want = !SICK.contains(m.name());
        if (fairway.daemon.applier().present(s.name(), m.name()) != want) {
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

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void everyRequestReachesTheBackendVarnishdChose(Setup s) throws Exception {
    Random rnd = new Random(s.name().hashCode());
    List<String> keys = new ArrayList<>(REQUESTS);
    for (int i = 0; i < REQUESTS; i++) {
      keys.add("/obj/" + Long.toHexString(rnd.nextLong()) + "?v=" + rnd.nextInt(1000));
    }
    Map<String, String> oracle = varnishChoices(s, keys);
    int port = fairway.port(s.name());
    // Four clients at once, each over its own keep-alive connections; the order does not matter
    // to a hashing director.
    Map<String, String> got = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.concurrent.ExecutorService clients =
        java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      List<java.util.concurrent.Future<?>> done = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        int from = c * REQUESTS / 4;
        int to = (c + 1) * REQUESTS / 4;
        HttpClient client =
            HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        done.add(
            clients.submit(
                () -> {
                  for (String k : keys.subList(from, to)) {
                    HttpRequest.Builder b =
                        HttpRequest.newBuilder(
                                URI.create(
                                    "http://127.0.0.1:"
                                        + port
                                        + (s.by().equals("URL") ? k : "/any")))
                            .timeout(Duration.ofSeconds(20));
                    if (s.by().equals("HEADER")) {
                      b.header("X-Key", k);
                    }
                    HttpResponse<String> r =
                        client.send(b.build(), HttpResponse.BodyHandlers.ofString());
                    got.put(k, r.statusCode() == 200 ? r.body() : "HTTP " + r.statusCode());
                  }
                  return null;
                }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get();
      }
    } finally {
      clients.shutdownNow();
    }
    int agree = 0;
    List<String> wrong = new ArrayList<>();
    Map<String, Integer> spread = new HashMap<>();
    for (String k : keys) {
      String body = got.get(k);
      spread.merge(body, 1, Integer::sum);
      if (body.equals(oracle.get(k))) {
        agree++;
      } else if (wrong.size() < 5) {
        wrong.add(k + ": fairway " + body + ", varnishd " + oracle.get(k));
      }
    }
    assertThat(wrong)
        .as(
            s.name()
                + ": "
                + agree
                + " of "
                + REQUESTS
                + " agree; both sides still agree on health: "
                + settled())
        .isEmpty();
    // Not a degenerate setup: the keys spread over the servers that are up.
    assertThat(spread.keySet()).hasSize(s.checked() ? BACKENDS - SICK.size() : BACKENDS);
  }

  /** varnishd's choice for each key, 16 keys a request. */
  static Map<String, String> varnishChoices(Setup s, List<String> keys) throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i += BATCH) {
      Map<String, String> h = new HashMap<>();
      h.put("x-mode", s.name());
      List<String> batch = keys.subList(i, Math.min(keys.size(), i + BATCH));
      for (int k = 0; k < batch.size(); k++) {
        h.put("k" + k, batch.get(k));
      }
      HttpResponse<String> r = varnishd.ask(h);
      for (int k = 0; k < batch.size(); k++) {
        String name = r.headers().firstValue("r" + k).orElseThrow();
        out.put(batch.get(k), name.startsWith("p") ? "b" + name.substring(1) : name);
      }
    }
    return out;
  }

  static String conf() throws Exception {
    StringBuilder c = new StringBuilder();
    for (Setup s : SETUPS) {
      c.append("virtual_server 127.0.0.1 ")
          .append(UserspaceDaemon.freePort())
          .append(" {\n")
          .append("  name ")
          .append(s.name())
          .append('\n')
          .append("  delay_loop 1\n  lb_algo ")
          .append(s.algo())
          .append("\n  lb_kind HTTP\n")
          .append("  protocol TCP\n  ")
          .append(s.algo())
          .append(" {\n")
          .append("    by ")
          .append(s.by().equals("URL") ? "URL" : "HEADER X-Key")
          .append('\n');
      if (s.replicas() > 0) {
        c.append("    replicas ").append(s.replicas()).append('\n');
      }
      c.append("  }\n");
      for (M m : s.members()) {
        c.append("  real_server 127.0.0.1 ")
            .append(backends.port(m.name()))
            .append(" {\n")
            .append("    name ")
            .append(m.name())
            .append('\n')
            .append("    weight ")
            .append(m.weight())
            .append('\n');
        if (m.ident() != null && s.algo().equals("shard")) {
          c.append("    ident ").append(m.ident()).append('\n');
        }
        if (s.checked()) {
          c.append(VarnishOracle.HTTP_GET);
        }
        c.append("  }\n");
      }
      c.append("}\n");
    }
    return c.toString();
  }

  static String vcl() {
    StringBuilder v = new StringBuilder("vcl 4.1;\nimport directors;\nimport std;\n\n");
    v.append(VarnishOracle.PROBE);
    for (int i = 0; i < BACKENDS; i++) {
      int port = backends.port("b" + i);
      v.append("backend b")
          .append(i)
          .append(" { .host = \"127.0.0.1\"; .port = \"")
          .append(port)
          .append("\"; }\n");
      v.append("backend p")
          .append(i)
          .append(" { .host = \"127.0.0.1\"; .port = \"")
          .append(port)
          .append("\"; .probe = health; }\n");
    }
    v.append("\nsub vcl_init {\n");
    for (Setup s : SETUPS) {
      v.append("  new ").append(s.name()).append(" = directors.").append(s.algo()).append("();\n");
      for (M m : s.members()) {
        String backend = (s.checked() ? "p" : "b") + m.name().substring(1);
        v.append("  ").append(s.name()).append(".add_backend(").append(backend);
        if (s.algo().equals("shard")) {
          // ident defaults to the backend's name in varnishd; p2 must hash as b2.
          String ident = m.ident() != null ? m.ident() : m.name();
          v.append(", ident=\"").append(ident).append("\", weight=").append(m.weight());
        } else {
          v.append(", ").append(m.weight());
        }
        v.append(");\n");
      }
      if (s.algo().equals("shard")) {
        v.append("  ")
            .append(s.name())
            .append(".reconfigure(")
            .append(s.replicas() > 0 ? "replicas=" + s.replicas() : "")
            .append(");\n");
      }
    }
    v.append("}\n\nsub vcl_recv {\n");
    List<String> probed = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      probed.add("p" + i);
    }
    v.append(VarnishOracle.recvPingAndHealth(probed));
    for (Setup s : SETUPS) {
      v.append("  if (req.http.x-mode == \"").append(s.name()).append("\") {\n");
      for (int k = 0; k < BATCH; k++) {
        v.append("    if (req.http.k")
            .append(k)
            .append(") {\n      set req.http.r")
            .append(k)
            .append(" = \"\" + ");
        if (s.algo().equals("shard")) {
          // by=URL hashes req.url exactly as key() hashes a string (vmod_shard: both
          // VRT_HashStrands32); the key travels in a header so 16 go in one request.
          v.append(s.name())
              .append(".backend(by=KEY, key=")
              .append(s.name())
              .append(".key(req.http.k")
              .append(k)
              .append("))");
        } else {
          v.append(s.name()).append(".backend(req.http.k").append(k).append(")");
        }
        v.append(";\n    }\n");
      }
      v.append("    return (synth(200));\n  }\n");
    }
    v.append("  return (synth(404));\n}\n\n").append(Varnishd.synthAnswers(BATCH));
    return v.toString();
  }
}

package io.fairway.director.varnish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.testkit.Varnishd;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The oracle: a real varnishd on loopback, configured with the same backends, idents, weights and
 * replicas, answers which backend its shard and hash directors choose for 10,000 random keys, under
 * four health states, three {@code healthy} modes and four {@code alt} values; every one of the
 * 520,000 answers must equal ours.
 *
 * <p>varnishd never fetches: {@code vcl_recv} resolves the directors (resolve=NOW) for the keys in
 * headers {@code k0..k15}, writes the chosen backend names into a header and returns a synthetic
 * response. Health is set with {@code varnishadm backend.set_health}; the backends have no probe.
 *
 * <p>The random director is compared too: after {@code varnishadm debug.srandom 4242}, 2,000
 * resolutions in sequence with two members sick must match {@link Vrnd} seeded with 4242. So is
 * shard warmup (probability 0.4, one member sick): 1,600 picks whose dice come from the same seeded
 * generator.
 */
class VarnishdOracleTest {

  static final int KEYS_PER_REQUEST = 16;
  static final int KEYS = 10_000;
  static final int REPLICAS = 37;
  static final String[] HEALTHY = {"CHOSEN", "IGNORE", "ALL"};
  static final int ALTS = 4;

  /** name, ident (null = name), weight: idents, a decimal weight and a weight below 1. */
  record Spec(String name, String ident, double weight) {}

  static final List<Spec> SPECS =
      List.of(
          new Spec("b0", "node-1", 1),
          new Spec("b1", null, 2),
          new Spec("b2", "alpha", 1.5),
          new Spec("b3", null, 1),
          new Spec("b4", null, 3),
          new Spec("b5", "b5x", 0.5),
          new Spec("b6", null, 1));

  static final List<Set<String>> SICK_STATES =
      List.of(
          Set.of(),
          Set.of("b1"),
          Set.of("b0", "b2", "b5"),
          Set.of("b0", "b1", "b2", "b3", "b5", "b6"));

  @TempDir static Path dir;
  static Varnishd varnishd;

  static String vcl() {
    StringBuilder v = new StringBuilder("vcl 4.1;\nimport directors;\n\n");
    for (Spec s : SPECS) {
      // port 9 (discard) on loopback: never contacted, varnishd only needs an address
      v.append("backend ").append(s.name()).append(" { .host = \"127.0.0.1\"; .port = \"9\"; }\n");
    }
    v.append("\nsub vcl_init {\n  new vd = directors.shard();\n");
    for (Spec s : SPECS) {
      v.append("  vd.add_backend(").append(s.name());
      if (s.ident() != null) {
        v.append(", ident=\"").append(s.ident()).append('"');
      }
      v.append(", weight=").append(s.weight()).append(");\n");
    }
    v.append("  vd.reconfigure(replicas=").append(REPLICAS).append(");\n");
    v.append("  new vw = directors.shard();\n");
    for (Spec s : SPECS) {
      v.append("  vw.add_backend(").append(s.name());
      if (s.ident() != null) {
        v.append(", ident=\"").append(s.ident()).append('"');
      }
      v.append(", weight=").append(s.weight()).append(");\n");
    }
    v.append("  vw.set_warmup(0.4);\n  vw.reconfigure(replicas=").append(REPLICAS).append(");\n");
    v.append("  new vr = directors.random();\n");
    for (Spec s : SPECS) {
      v.append("  vr.add_backend(").append(s.name()).append(", ").append(s.weight()).append(");\n");
    }
    v.append("  new vh = directors.hash();\n");
    for (Spec s : SPECS) {
      v.append("  vh.add_backend(").append(s.name()).append(", ").append(s.weight()).append(");\n");
    }
    v.append("}\n\nsub vcl_recv {\n");
    // random: one draw per resolve, in statement order, after varnishadm debug.srandom
    v.append("  if (req.http.x-mode == \"random\") {\n    set req.http.r0 = \"\"");
    for (int k = 0; k < KEYS_PER_REQUEST; k++) {
      v.append(" + vr.backend().resolve() + \",\"");
    }
    v.append(";\n    return (synth(200));\n  }\n");
    // shard warmup: the dice (two draws each) are rolled in statement order
    v.append("  if (req.http.x-mode == \"warmup\") {\n    set req.http.r0 = \"\"");
    for (int k = 0; k < KEYS_PER_REQUEST; k++) {
      v.append(" + vw.backend(by=KEY, key=vw.key(req.http.k").append(k).append(")) + \",\"");
    }
    v.append(";\n    return (synth(200));\n  }\n");
    for (int k = 0; k < KEYS_PER_REQUEST; k++) {
      v.append("  set req.http.r").append(k).append(" = \"\"");
      for (String h : HEALTHY) {
        for (int alt = 0; alt < ALTS; alt++) {
          v.append(" + vd.backend(by=KEY, key=vd.key(req.http.k")
              .append(k)
              .append("), alt=")
              .append(alt)
              .append(", healthy=")
              .append(h)
              .append(") + \",\"");
        }
      }
      v.append(" + vh.backend(req.http.k").append(k).append(");\n");
    }
    v.append("  return (synth(200));\n}\n\n").append(Varnishd.synthAnswers(KEYS_PER_REQUEST));
    return v.toString();
  }

  @BeforeAll
  static void startVarnishd() throws Exception {
    // Every request answers 200: the VCL resolves the directors for the keys it was given.
    varnishd = Varnishd.start(Varnishd.require(), dir, vcl(), Map.of("k0", "x"));
  }

  @AfterAll
  static void stopVarnishd() {
    if (varnishd != null) {
      varnishd.close();
    }
  }

  /** Headers {@code k0..k<n-1>}: the keys varnishd's directors resolve. */
  static Map<String, String> keyHeaders(List<String> keys) {
    Map<String, String> h = new LinkedHashMap<>();
    for (int k = 0; k < keys.size(); k++) {
      h.put("k" + k, keys.get(k));
    }
    return h;
  }

  /**
   * Sets every backend's admin health. One varnishadm per command, run side by side: fed several
   * commands on stdin, varnishadm may exit at end of input before it has sent them all.
   */
  static void setHealth(Set<String> sick) throws Exception {
    List<Process> ps = new ArrayList<>();
    for (Spec s : SPECS) {
      ps.add(
          varnishd.varnishadm(
              "backend.set_health", s.name(), sick.contains(s.name()) ? "sick" : "healthy"));
    }
    for (Process p : ps) {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor()).as("varnishadm: %s", out).isZero();
    }
  }

  static List<String> randomKeys(int n, long seed) {
    Random r = new Random(seed);
    String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/_-.?=&%";
    List<String> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int len = 1 + r.nextInt(48);
      StringBuilder s = new StringBuilder(len);
      for (int j = 0; j < len; j++) {
        s.append(alphabet.charAt(r.nextInt(alphabet.length())));
      }
      keys.add(s.toString());
    }
    return keys;
  }

  @Test
  void shardAndHashChooseExactlyWhatVarnishdChooses() throws Exception {
    ShardDirector shard =
        new ShardDirector(
            "vd", new ShardDirector.Settings(REPLICAS, 0, 0, ShardParams.DEFAULTS), null, null);
    HashDirector hash = new HashDirector("vh");
    for (Spec s : SPECS) {
      Backend b = Backend.named(s.name());
      shard.add(Member.of(b, s.weight()).withIdent(s.ident()));
      hash.add(Member.of(b, s.weight()));
    }
    List<String> keys = randomKeys(KEYS, 20261129L);
    int compared = 0;
    List<String> mismatches = new ArrayList<>();
    for (Set<String> sick : SICK_STATES) {
      setHealth(sick);
      for (Spec s : SPECS) {
        boolean up = !sick.contains(s.name());
        shard.setHealthy(s.name(), up);
        hash.setHealthy(s.name(), up);
      }
      List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
      List<List<String>> batches = new ArrayList<>();
      for (int i = 0; i < keys.size(); i += KEYS_PER_REQUEST) {
        List<String> batch = keys.subList(i, Math.min(keys.size(), i + KEYS_PER_REQUEST));
        batches.add(batch);
        inFlight.add(varnishd.askAsync(keyHeaders(batch)));
        if (inFlight.size() >= 8) {
          compared +=
              check(shard, hash, sick, batches.remove(0), inFlight.remove(0).join(), mismatches);
        }
      }
      while (!inFlight.isEmpty()) {
        compared +=
            check(shard, hash, sick, batches.remove(0), inFlight.remove(0).join(), mismatches);
      }
    }
    assertThat(mismatches).as("first mismatches").isEmpty();
    assertThat(compared).isEqualTo(SICK_STATES.size() * KEYS * (HEALTHY.length * ALTS + 1));
  }

  @Test
  void randomWithTheSameSeedDrawsTheSameSequence() throws Exception {
    RandomDirector mine = new RandomDirector("vr", new Vrnd(4242), null);
    for (Spec s : SPECS) {
      mine.add(Member.of(Backend.named(s.name()), s.weight()));
    }
    Set<String> sick = Set.of("b1", "b4");
    setHealth(sick);
    for (String b : sick) {
      mine.setHealthy(b, false);
    }
    Process seed = varnishd.varnishadm("debug.srandom", "4242");
    assertThat(seed.waitFor()).isZero();
    List<String> theirs = new ArrayList<>();
    for (int i = 0; i < 125; i++) { // one request at a time: draws must stay in order
      String line = varnishd.ask(Map.of("x-mode", "random")).headers().firstValue("r0").orElse("");
      List<String> got = List.of(line.split(",", -1));
      theirs.addAll(got.subList(0, KEYS_PER_REQUEST));
    }
    List<String> ours = new ArrayList<>();
    for (int i = 0; i < theirs.size(); i++) {
      Backend b = mine.pick(Request.EMPTY);
      ours.add(b == null ? "" : b.name());
    }
    assertThat(ours).isEqualTo(theirs);
    assertThat(ours).doesNotContain("b1", "b4").contains("b0", "b2", "b3", "b5", "b6");
  }

  @Test
  void shardWarmupRollsTheSameDiceAsVarnishd() throws Exception {
    ShardDirector mine =
        new ShardDirector(
            "vw",
            new ShardDirector.Settings(REPLICAS, 0.4, 0, ShardParams.DEFAULTS),
            new Vrnd(77),
            null);
    for (Spec s : SPECS) {
      mine.add(Member.of(Backend.named(s.name()), s.weight()).withIdent(s.ident()));
    }
    Set<String> sick = Set.of("b2");
    setHealth(sick);
    mine.setHealthy("b2", false);
    Process seed = varnishd.varnishadm("debug.srandom", "77");
    assertThat(seed.waitFor()).isZero();
    List<String> keys = randomKeys(KEYS_PER_REQUEST * 100, 99L);
    List<String> theirs = new ArrayList<>();
    for (int i = 0; i < keys.size(); i += KEYS_PER_REQUEST) {
      List<String> batch = keys.subList(i, i + KEYS_PER_REQUEST);
      Map<String, String> headers = keyHeaders(batch);
      headers.put("x-mode", "warmup");
      String line = varnishd.ask(headers).headers().firstValue("r0").orElse("");
      theirs.addAll(List.of(line.split(",", -1)).subList(0, KEYS_PER_REQUEST));
    }
    List<String> ours = new ArrayList<>();
    int moved = 0;
    ShardDirector noWarmup =
        new ShardDirector(
            "plain", new ShardDirector.Settings(REPLICAS, 0, 0, ShardParams.DEFAULTS), null, null);
    for (Spec s : SPECS) {
      noWarmup.add(Member.of(Backend.named(s.name()), s.weight()).withIdent(s.ident()));
    }
    noWarmup.setHealthy("b2", false);
    for (String k : keys) {
      Request r = Request.ofString(k).withParams(ShardParams.DEFAULTS.withBy(ShardBy.KEY));
      Backend b = mine.pick(r);
      ours.add(b == null ? "" : b.name());
      if (!java.util.Objects.equals(b, noWarmup.pick(r))) { // records: equal by name
        moved++;
      }
    }
    assertThat(ours).isEqualTo(theirs);
    // about 40% of the picks went to the next server: the dice were really rolled
    assertThat(moved).isBetween(keys.size() * 30 / 100, keys.size() * 50 / 100);
  }

  static int check(
      ShardDirector shard,
      HashDirector hash,
      Set<String> sick,
      List<String> batch,
      HttpResponse<String> resp,
      List<String> mismatches) {
    assertThat(resp.statusCode()).isEqualTo(200);
    int n = 0;
    for (int k = 0; k < batch.size(); k++) {
      String line = resp.headers().firstValue("r" + k).orElse("");
      String[] got = line.split(",", -1);
      assertThat(got)
          .as("answers for key %s: %s", batch.get(k), line)
          .hasSize(HEALTHY.length * ALTS + 1);
      int g = 0;
      for (String h : HEALTHY) {
        for (int alt = 0; alt < ALTS; alt++) {
          ShardParams p =
              ShardParams.DEFAULTS.withBy(ShardBy.KEY).withHealthy(ShardHealthy.valueOf(h));
          Backend mine = shard.pick(Request.ofString(batch.get(k)).withAlt(alt).withParams(p));
          String want = got[g++];
          if (!want.equals(mine == null ? "" : mine.name()) && mismatches.size() < 20) {
            mismatches.add(
                "shard key="
                    + batch.get(k)
                    + " sick="
                    + sick
                    + " healthy="
                    + h
                    + " alt="
                    + alt
                    + ": varnishd "
                    + want
                    + ", fairway "
                    + (mine == null ? "none" : mine.name()));
          }
          n++;
        }
      }
      Backend mine = hash.pick(Request.ofString(batch.get(k)));
      String want = got[g];
      if (!want.equals(mine == null ? "" : mine.name()) && mismatches.size() < 20) {
        mismatches.add(
            "hash key="
                + batch.get(k)
                + " sick="
                + sick
                + ": varnishd "
                + want
                + ", fairway "
                + (mine == null ? "none" : mine.name()));
      }
      n++;
    }
    return n;
  }
}

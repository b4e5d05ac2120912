package io.fairway.daemon.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.daemon.balance.Balancer;
import io.fairway.daemon.balance.BalancerFactory;
import io.fairway.plan.ServicePlan;
import io.fairway.table.DestEntry;
import io.fairway.table.ServiceEntry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SIGHUP that changes one field of the plan reaches the running proxy, under traffic, with no
 * failed request: each test reloads a file that differs in that field only and checks that the data
 * plane now does what the new plan says (and no longer what the old one said).
 */
class PlanReloadTest {
  static final int KEYS = 300;
  @TempDir Path dir;
  Backends backends;
  UserspaceDaemon fairway;
  int vip;
  HttpClient http = client();

  static HttpClient client() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2))
        .build();
  }

  /** The fields a test varies; everything else stays. */
  record Conf(
      String algo, String directorBlock, String lbKind, List<String> rsExtra, String vsExtra) {
    Conf with(UnaryOperator<Conf> f) {
      return f.apply(this);
    }

    Conf rs(int i, String line) {
      List<String> l = new ArrayList<>(rsExtra);
      l.set(i, l.get(i) + line + "\n");
      return new Conf(algo, directorBlock, lbKind, l, vsExtra);
    }

    Conf director(String block) {
      return new Conf(algo, block, lbKind, rsExtra, vsExtra);
    }

    Conf algo(String a, String block) {
      return new Conf(a, block, lbKind, rsExtra, vsExtra);
    }

    Conf kind(String k) {
      return new Conf(algo, directorBlock, k, rsExtra, vsExtra);
    }

    Conf vs(String extra) {
      return new Conf(algo, directorBlock, lbKind, rsExtra, vsExtra + extra + "\n");
    }
  }

  static Conf base() {
    return new Conf("shard", "shard {\n by URL\n }", "HTTP", List.of("", "", "", ""), "");
  }

  String text(Conf c) {
    StringBuilder s =
        new StringBuilder(
            "virtual_server 127.0.0.1 "
                + vip
                + " {\n name web\n"
                + " lb_algo "
                + c.algo()
                + "\n lb_kind "
                + c.lbKind()
                + "\n protocol TCP\n"
                + c.directorBlock()
                + "\n"
                + c.vsExtra());
    for (int i = 0; i < 4; i++) {
      s.append(" real_server 127.0.0.1 ")
          .append(backends.port("b" + i))
          .append(" {\n  name b")
          .append(i)
          .append('\n')
          .append(c.rsExtra().get(i))
          .append(" }\n");
    }
    return s.append("}\n").toString();
  }

  @BeforeEach
  void start() throws Exception {
    backends = new Backends(5, Set.of());
    vip = UserspaceDaemon.freePort();
  }

  void run(Conf c) throws Exception {
    fairway = new UserspaceDaemon(dir.resolve("keepalived.conf"), text(c));
  }

  @AfterEach
  void stop() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    backends.close();
  }

  String get(String url, String header) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip + url))
            .timeout(Duration.ofSeconds(5));
    if (header != null) {
      b.header("X-Key", header);
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return r.statusCode() == 200 ? r.body() : "HTTP " + r.statusCode();
  }

  static List<String> keys() {
    List<String> k = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      k.add("/k/" + i);
    }
    return k;
  }

  /** The backend {@code fairway pick} names for each key, under the running plan. */
  List<String> picks(boolean byHeader) {
    ServicePlan p = fairway.plan("web");
    Balancer b = BalancerFactory.build(p, BalancerFactory.Options.NONE);
    return keys().stream().map(b::pick).toList();
  }

  List<String> through(boolean byHeader) throws Exception {
    List<String> out = new ArrayList<>();
    for (String k : keys()) {
      out.add(byHeader ? get("/same", k) : get(k, null));
    }
    return out;
  }

  /**
   * Reloads {@code after} while a client sends requests, none of which may fail; then the proxy
   * must follow the new plan's picks and they must differ from the old plan's somewhere.
   */
  void reloadFollowsPick(Conf before, Conf after, boolean headerBefore, boolean headerAfter)
      throws Exception {
    run(before);
    List<String> old = picks(headerBefore);
    assertThat(through(headerBefore)).isEqualTo(old);
    underTraffic(() -> assertThat(fairway.reload(text(after))).isNull());
    List<String> now = picks(headerAfter);
    assertThat(now).as("the change matters for some key").isNotEqualTo(old);
    assertThat(through(headerAfter)).isEqualTo(now);
  }

  void underTraffic(ThrowingRunnable reload) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger failed = new AtomicInteger();
    AtomicInteger sent = new AtomicInteger();
    Thread t =
        new Thread(
            () -> {
              while (!stop.get() && sent.get() < 100_000) {
                try {
                  if (get("/traffic/" + sent.incrementAndGet(), "t").startsWith("HTTP ")) {
                    failed.incrementAndGet();
                  }
                } catch (Exception e) {
                  failed.incrementAndGet();
                }
              }
            },
            "plan-traffic");
    t.start();
    try {
      org.awaitility.Awaitility.await().until(() -> sent.get() > 20);
      reload.run();
      int at = sent.get();
      org.awaitility.Awaitility.await().until(() -> sent.get() > at + 20);
    } finally {
      stop.set(true);
      t.join();
    }
    assertThat(failed.get()).as("failed requests of " + sent.get()).isZero();
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void shardReplicas() throws Exception {
    reloadFollowsPick(base(), base().director("shard {\n by URL\n replicas 1\n }"), false, false);
  }

  @Test
  void directorType() throws Exception {
    reloadFollowsPick(base(), base().algo("hash", "hash {\n by URL\n }"), false, false);
  }

  @Test
  void keySource() throws Exception {
    run(base());
    // Keyed by URL, one URL: every header value goes to the same server.
    assertThat(new HashSet<>(through(true))).hasSize(1);
    underTraffic(
        () ->
            assertThat(fairway.reload(text(base().director("shard {\n by HEADER X-Key\n }"))))
                .isNull());
    List<String> now = picks(true);
    assertThat(new HashSet<>(now)).hasSizeGreaterThan(1);
    assertThat(through(true)).isEqualTo(now);
  }

  @Test
  void ident() throws Exception {
    reloadFollowsPick(base(), base().rs(1, "  ident elsewhere"), false, false);
  }

  @Test
  void decimalWeightTheTableDoesNotSee() throws Exception {
    // 1.5 and 1.9 are both weight 2 in the table: only the plan carries the change.
    Conf before = base().algo("hash", "hash {\n by URL\n }").rs(2, "  weight 1.5");
    Conf after = base().algo("hash", "hash {\n by URL\n }").rs(2, "  weight 1.9");
    reloadFollowsPick(before, after, false, false);
  }

  @Test
  void sorryServer() throws Exception {
    Conf drained =
        base().rs(0, "  weight 0").rs(1, "  weight 0").rs(2, "  weight 0").rs(3, "  weight 0");
    run(drained);
    assertThat(get("/x", null)).isEqualTo("HTTP 503");
    Conf withSorry =
        drained.vs(
            " sorry_server 127.0.0.1 " + backends.port("b4") + "\n overflow_to_sorry_server");
    assertThat(fairway.reload(text(withSorry))).isNull();
    assertThat(get("/x", null)).as("overflow to the new sorry server").isEqualTo("b4");
  }

  @Test
  void thresholds() throws Exception {
    run(base());
    underTraffic(
        () ->
            assertThat(fairway.reload(text(base().rs(0, "  uthreshold 7\n  lthreshold 3"))))
                .isNull());
    DestEntry b0 = dest(backends.port("b0"));
    assertThat(b0.dest().upperThreshold()).isEqualTo(7);
    assertThat(b0.dest().lowerThreshold()).isEqualTo(3);
  }

  /**
   * {@code max_conns} from keepalived.conf to the relay: four servers of one connection each take
   * four clients, one each; the fifth waits, served by nobody, until a reload raises the limit.
   */
  @Test
  void maxConns() throws Exception {
    Conf one = base().kind("PROXY").algo("wlc", "");
    run(one.vs(" max_conns 1"));
    assertThat(fairway.plan("web").members()).extracting(m -> m.maxConns()).containsOnly(1);
    List<java.net.Socket> held = new ArrayList<>();
    try {
      Set<String> servers = new HashSet<>();
      for (int i = 0; i < 4; i++) {
        java.net.Socket s = new java.net.Socket("127.0.0.1", vip);
        held.add(s);
        servers.add(rawGet(s, Duration.ofSeconds(10)));
      }
      assertThat(servers)
          .as("one client per server")
          .containsExactlyInAnyOrder("b0", "b1", "b2", "b3");
      java.net.Socket fifth = new java.net.Socket("127.0.0.1", vip);
      held.add(fifth);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> rawGet(fifth, Duration.ofMillis(500)))
          .as("an answer with every server at its max_conns")
          .isInstanceOf(java.net.SocketTimeoutException.class);
      assertThat(fairway.reload(text(one.vs(" max_conns 2")))).isNull();
      assertThat(fairway.plan("web").members()).extracting(m -> m.maxConns()).containsOnly(2);
      assertThat(readAnswer(fifth, Duration.ofSeconds(2))).isIn("b0", "b1", "b2", "b3");
    } finally {
      for (java.net.Socket s : held) {
        s.close();
      }
    }
  }

  /** One keep-alive request on a raw connection through the L4 relay; the body (a server name). */
  static String rawGet(java.net.Socket s, Duration wait) throws java.io.IOException {
    s.getOutputStream()
        .write(
            "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    return readAnswer(s, wait);
  }

  /** The body of the next answer on {@code s}: its head's lines, then Content-length bytes. */
  static String readAnswer(java.net.Socket s, Duration wait) throws java.io.IOException {
    s.setSoTimeout((int) wait.toMillis());
    java.io.InputStream in = s.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new java.io.EOFException("closed after " + head);
      }
      head.append((char) b);
    }
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
    assertThat(m.find()).as("a Content-length in " + head).isTrue();
    return new String(
        in.readNBytes(Integer.parseInt(m.group(1))), java.nio.charset.StandardCharsets.US_ASCII);
  }

  DestEntry dest(int port) throws Exception {
    for (ServiceEntry e : fairway.table.list()) {
      for (DestEntry d : e.dests()) {
        if (d.dest().port() == port) {
          return d;
        }
      }
    }
    throw new AssertionError("no destination on port " + port);
  }

  @Test
  void persistence() throws Exception {
    Conf rr = base().algo("round_robin", "");
    run(rr);
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 8; i++) {
      seen.add(get("/p", null));
    }
    assertThat(seen).hasSize(4);
    underTraffic(() -> assertThat(fairway.reload(text(rr.vs(" persistence_timeout 60")))).isNull());
    seen.clear();
    for (int i = 0; i < 8; i++) {
      seen.add(get("/p", null));
    }
    assertThat(seen).as("one client, one server while persistent").hasSize(1);
  }

  @Test
  void lbKind() throws Exception {
    // PROXY keys shard by the client address (one for every request here); HTTP by URL.
    Conf l4 = base().kind("PROXY").director("shard {\n }");
    run(l4);
    Set<String> seen = new HashSet<>(through(false));
    assertThat(seen).hasSize(1);
    underTraffic(() -> assertThat(fairway.reload(text(base()))).isNull());
    // Established connections stay L4 relays, as they must; new ones are the HTTP proxy.
    http = client();
    assertThat(through(false)).isEqualTo(picks(false));
  }
}

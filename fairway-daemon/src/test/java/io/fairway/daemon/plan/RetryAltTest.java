package io.fairway.daemon.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.daemon.balance.Balancer;
import io.fairway.daemon.balance.BalancerFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed's retry idiom: when the backend shard chose refuses the connection, the HTTP proxy asks
 * shard for {@code alt = 1} (Varnish's {@code alt=bereq.retries}), so the key goes to its next ring
 * neighbour, the one {@code fairway pick --alt 1} names, not to an arbitrary server.
 */
class RetryAltTest {
  @TempDir Path dir;

  @Test
  void aRetriedKeyGoesWherePickAlt1Says() throws Exception {
    try (Backends backends = new Backends(5, Set.of())) {
      int vip = UserspaceDaemon.freePort();
      StringBuilder c =
          new StringBuilder(
              "virtual_server 127.0.0.1 "
                  + vip
                  + " {\n name web\n lb_algo shard\n lb_kind HTTP\n protocol TCP\n shard {\n  by URL\n }\n");
      for (int i = 0; i < 5; i++) {
        // No checker: the dead backend stays in the table, so only the retry avoids it.
        c.append(" real_server 127.0.0.1 ")
            .append(backends.port("b" + i))
            .append(" {\n  name b")
            .append(i)
            .append("\n }\n");
      }
      c.append("}\n");
      try (UserspaceDaemon fairway = new UserspaceDaemon(dir.resolve("k.conf"), c.toString())) {
        backends.stop("b1");
        Balancer first = BalancerFactory.build(fairway.plan("web"), BalancerFactory.Options.NONE);
        Balancer alt1 =
            BalancerFactory.build(fairway.plan("web"), new BalancerFactory.Options(null, null, 1));
        HttpClient http =
            HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        int retried = 0;
        for (int i = 0; i < 200; i++) {
          String url = "/obj/" + i;
          HttpResponse<String> r =
              http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip + url))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          assertThat(r.statusCode()).as(url).isEqualTo(200);
          if (first.pick(url).equals("b1")) {
            retried++;
            assertThat(r.body()).as(url + " retried").isEqualTo(alt1.pick(url));
          } else {
            assertThat(r.body()).as(url).isEqualTo(first.pick(url));
          }
        }
        assertThat(retried).as("keys whose first choice is the dead b1").isGreaterThan(10);
      }
    }
  }
}

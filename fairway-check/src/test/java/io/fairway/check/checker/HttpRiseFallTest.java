package io.fairway.check.checker;

import io.fairway.check.QuorumChanged;
import io.fairway.check.ServerStateChanged;
import io.fairway.check.VerdictListener;
import io.fairway.check.VirtualServerStatus;
import io.fairway.check.WeightChanged;
import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * rise/fall and the url sequence, end to end: keepalived.conf text → specs → the engine with real HTTP_GET
 * checkers → a real nginx whose page is toggled by creating and deleting a file.
 *
 * <p>No wall-clock bound is asserted (the machine is shared). Instead nginx logs the status of every request to
 * the toggled page, and the listener reads that log at the moment of each verdict: the engine schedules the next
 * attempt only after the verdict returns, so the log then holds exactly the requests that led to it.
 */
class HttpRiseFallTest {
    @TempDir
    static Path dir;
    static Process nginx;
    static int port;

    @BeforeAll
    static void startNginx() throws Exception {
        Path bin = Programs.require("nginx");
        Files.createDirectories(dir.resolve("www"));
        port = Programs.freePort();
        String conf = """
                daemon off;
                master_process off;
                worker_processes 1;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log;
                events { worker_connections 64; }
                http {
                  access_log off;
                  log_format st '$uri $status';
                  client_body_temp_path %1$s/body; proxy_temp_path %1$s/proxy; fastcgi_temp_path %1$s/fcgi;
                  uwsgi_temp_path %1$s/uwsgi; scgi_temp_path %1$s/scgi;
                  server {
                    listen 127.0.0.1:%2$d;
                    location / { root %1$s/www; access_log %1$s/access.log st; }
                    location = /a { access_log %1$s/access.log st; return 200 "a"; }
                    location = /b { access_log %1$s/access.log st; return 200 "b"; }
                  }
                }
                """.formatted(dir, port);
        Files.writeString(dir.resolve("nginx.conf"), conf);
        nginx = Programs.start(dir.resolve("nginx.out"), bin.toString(), "-p", dir.toString(), "-c",
                dir.resolve("nginx.conf").toString());
        Programs.awaitTcp(port, nginx, dir.resolve("error.log"));
    }

    @AfterAll
    static void stop() throws Exception {
        Programs.stop(nginx);
    }

    /** A verdict and the access log lines (after the mark) at the moment it was given. */
    record Verdict(boolean alive, List<String> log) {
    }

    static final class Listener implements VerdictListener {
        final List<Verdict> verdicts = new CopyOnWriteArrayList<>();
        volatile int mark;

        @Override
        public void initialState(VirtualServerStatus status) {
        }

        @Override
        public void serverStateChanged(ServerStateChanged e) {
            verdicts.add(new Verdict(e.alive(), since(mark)));
        }

        @Override
        public void weightChanged(WeightChanged e) {
        }

        @Override
        public void quorumChanged(QuorumChanged e) {
        }
    }

    static List<String> log() {
        try {
            Path p = dir.resolve("access.log");
            return Files.exists(p) ? Files.readAllLines(p) : List.of();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static List<String> since(int mark) {
        List<String> all = log();
        return all.subList(Math.min(mark, all.size()), all.size());
    }

    static CheckEngine start(Listener l, String checker) throws Exception {
        String text = """
                virtual_server 127.0.0.1 80 {
                  protocol TCP
                  delay_loop 0.2
                  real_server 127.0.0.1 %d {
                    HTTP_GET {
                      connect_timeout 5
                      delay_before_retry 0.1
                      warmup 0
                %s
                    }
                  }
                }
                """.formatted(port, checker);
        var specs = CheckSpecs.from(KeepalivedConfig.parse("test.conf", text, dir, ParseOptions.defaults()).config());
        CheckEngine engine = CheckEngine.builder().listener(l).build();
        engine.start(specs);
        return engine;
    }

    @Test
    void fallTwoNeedsTwoFailuresAndRiseThreeNeedsThreeSuccesses() throws Exception {
        Path page = dir.resolve("www/toggle.html");
        Files.writeString(page, "up\n");
        Listener l = new Listener();
        try (CheckEngine engine = start(l, "      rise 3\n      fall 2\n      url {\n        path /toggle.html\n      }")) {
            await().atMost(Duration.ofSeconds(20)).until(() -> log().size() >= 2);
            assertThat(l.verdicts).isEmpty(); // up from the start (no alpha), and staying up

            l.mark = log().size();
            Files.delete(page);
            await().atMost(Duration.ofSeconds(20)).until(() -> !l.verdicts.isEmpty());
            Verdict down = l.verdicts.get(0);
            assertThat(down.alive()).isFalse();
            // The page may have been fetched once more just before the delete landed; then exactly two 404s.
            assertThat(down.log()).endsWith("/toggle.html 404", "/toggle.html 404");
            assertThat(down.log().stream().filter(s -> s.endsWith("404"))).hasSize(2);

            l.mark = log().size();
            Files.writeString(page, "up\n");
            await().atMost(Duration.ofSeconds(20)).until(() -> l.verdicts.size() >= 2);
            Verdict up = l.verdicts.get(1);
            assertThat(up.alive()).isTrue();
            assertThat(up.log()).endsWith("/toggle.html 200", "/toggle.html 200", "/toggle.html 200");
            assertThat(up.log().stream().filter(s -> s.endsWith("200"))).hasSize(3);
        }
    }

    @Test
    void aRecoveredUrlBringsTheServerBackInOneAttemptWithTheFailedUrlFirst() throws Exception {
        // keepalived with fast_recovery re-checks every url at once after the failed one passes; Fairway's
        // HTTP_GET always does (all urls in one attempt), so recovery costs one attempt whatever the flag.
        Path page = dir.resolve("www/mid.html");
        Files.deleteIfExists(page);
        Listener l = new Listener();
        String urls = "      url {\n        path /a\n      }\n      url {\n        path /mid.html\n      }\n"
                + "      url {\n        path /b\n      }";
        l.mark = log().size();
        try (CheckEngine engine = start(l, "      retry 0\n" + urls)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> !l.verdicts.isEmpty());
            assertThat(l.verdicts.get(0).alive()).isFalse();
            assertThat(l.verdicts.get(0).log()).containsExactly("/a 200", "/mid.html 404");
            // While down, each attempt stops at the failed url, fetched first: /a is not polled again.
            int before = log().size();
            await().atMost(Duration.ofSeconds(20)).until(() -> log().size() >= before + 2);
            assertThat(since(before)).allMatch(s -> s.equals("/mid.html 404"));

            l.mark = log().size();
            Files.writeString(page, "up\n");
            await().atMost(Duration.ofSeconds(20)).until(() -> l.verdicts.size() >= 2);
            Verdict up = l.verdicts.get(1);
            assertThat(up.alive()).isTrue();
            List<String> tail = up.log().subList(up.log().size() - 3, up.log().size());
            assertThat(tail).containsExactly("/mid.html 200", "/a 200", "/b 200");
        }
    }
}

package io.fairway.check.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.check.ServerStateChanged;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.HttpCheckSpec;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.UrlSpec;
import io.fairway.check.spec.VirtualServerSpec;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * keepalived's HTTP_GET/SSL_GET url rules (check_http.c {@code epilog}/{@code timeout_epilog}), one
 * test each, on a manual clock with scripted per-url answers: which url ran when, and when the
 * verdicts came.
 */
class HttpUrlRulesTest extends ScriptedEngineFixture {

  static HttpCheckSpec http(int urls, CheckTiming t) {
    return HttpCheckSpec.builder(InetSocketAddress.createUnresolved("rs", 80), t)
        .urls(IntStream.range(0, urls).mapToObj(i -> UrlSpec.path("/u" + i)).toList())
        .build();
  }

  void start(HttpCheckSpec spec) {
    start(VirtualServerSpec.of("vs", List.of(RealServerSpec.of("a", 1, spec)), 1, 0));
  }

  /** Advances the clock to {@code t} seconds since start. */
  void to(long seconds) {
    clock.advance(Duration.ofNanos(seconds * 1_000_000_000L - clock.nanoTime()));
  }

  /** The verdicts as {@code "<seconds>s:UP|DOWN"}. */
  List<String> verdicts() {
    return rec.at(ServerStateChanged.class).stream()
        .map(
            a ->
                a.nanos() / 1_000_000_000L
                    + "s:"
                    + (((ServerStateChanged) a.event()).alive() ? "UP" : "DOWN"))
        .toList();
  }

  @Nullable List<String> ran() {
    return checkers.ranParts.get("a");
  }

  @Test
  void oneUrlIsFetchedPerDelayLoopAndOnlyACompleteWalkBringsTheServerUp() {
    start(http(3, T.withAlpha(true)));
    to(20);
    assertThat(states()).isEmpty(); // two of three urls passed: not yet
    to(41);
    assertThat(ran()).containsExactly("1s:0", "11s:1", "21s:2", "31s:0", "41s:1");
    assertThat(verdicts()).containsExactly("21s:UP");
  }

  @Test
  void theFirstFailureOfTheFirstWalkIsFinalEvenWithRetries() {
    checkers.set("a", 1, false);
    start(http(3, T.withRetry(3)));
    to(31);
    assertThat(verdicts()).containsExactly("11s:DOWN");
    // The failed url, alone, every max(delay_before_retry, delay_loop).
    assertThat(ran()).containsExactly("1s:0", "11s:1", "21s:1", "31s:1");
  }

  @Test
  void retriesCountPerUrlAndAPassRestartsTheCount() {
    start(http(3, T.withRetry(1)));
    to(31); // first walk at 1, 11, 21; url 0 again at 31
    checkers.set("a", 1, false);
    to(41); // url 1 fails once: retried after delay_before_retry, not the next url
    checkers.set("a", 1, true);
    checkers.set("a", 2, false);
    to(52); // url 1 passes at 42; url 2 fails once at 52
    checkers.set("a", 2, true);
    to(53); // url 2 passes on its retry: the walk completes, nothing happened
    assertThat(states()).isEmpty();
    assertThat(ran())
        .containsExactly("1s:0", "11s:1", "21s:2", "31s:0", "41s:1", "42s:1", "52s:2", "53s:2");

    checkers.set("a", 2, false);
    to(83); // url 0 at 63, url 1 at 73, url 2 fails at 83
    assertThat(states()).isEmpty();
    to(84); // the same url failed retry + 1 = 2 times
    assertThat(verdicts()).containsExactly("84s:DOWN");
  }

  @Test
  void aFailedUrlIsRepolledAloneThenEveryUrlIsCheckedAgainFromTheFirst() {
    Duration dbr = Duration.ofSeconds(15);
    checkers.set("a", 1, false);
    start(http(3, T.withRetry(0).withDelayBeforeRetry(dbr)));
    to(40); // down at 11; url 1 re-polled every max(15 s, 10 s) = 15 s
    checkers.set("a", 1, true);
    to(71);
    assertThat(ran()).containsExactly("1s:0", "11s:1", "26s:1", "41s:1", "51s:0", "61s:1", "71s:2");
    assertThat(verdicts()).containsExactly("11s:DOWN", "71s:UP");
  }

  @Test
  void aSingleUrlNeedsTheFailedUrlsPassAndThenOneCleanWalk() {
    start(http(1, T.withRetry(0)));
    to(1);
    checkers.set("a", 0, false);
    to(21);
    checkers.set("a", 0, true);
    to(31); // the failed url passes: no verdict yet, keepalived starts a new walk
    assertThat(verdicts()).containsExactly("11s:DOWN");
    to(41);
    assertThat(verdicts()).containsExactly("11s:DOWN", "41s:UP");
    assertThat(ran()).containsExactly("1s:0", "11s:0", "21s:0", "31s:0", "41s:0");
  }

  @Test
  void fastRecoveryWalksWithoutWaitingWhileStartingAndOnceTheFailedUrlPasses() {
    start(http(3, T.withAlpha(true).withRetry(0)).withFastRecovery(true));
    to(1); // the first walk: no delay between urls
    assertThat(verdicts()).containsExactly("1s:UP");
    to(11);
    checkers.set("a", 1, false);
    to(31); // url 1 fails at 21 and is re-polled after delay_loop: a known failure is not hurried
    checkers.set("a", 1, true);
    to(41);
    assertThat(ran())
        .containsExactly(
            "1s:0", "1s:1", "1s:2", "11s:0", "21s:1", "31s:1", "41s:1", "41s:0", "41s:1", "41s:2");
    assertThat(verdicts()).containsExactly("1s:UP", "21s:DOWN", "41s:UP");
    to(51); // up again: back to one url per delay_loop
    assertThat(ran()).endsWith("41s:2", "51s:0");
  }

  @Test
  void aNewFailureWhileDownWithNoFailedUrlIsRetriedAtDelayBeforeRetry() {
    // keepalived's epilog only marks a failed url while the checker is up (or has not run); a down
    // checker
    // whose failed url recovered and which then fails on another url polls that url at
    // delay_before_retry,
    // and comes up as soon as the walk completes.
    checkers.set("a", 1, false);
    start(http(3, T.withRetry(0)));
    to(11); // down
    checkers.set("a", 1, true);
    checkers.set("a", 2, false);
    to(52); // url 1 passes at 21; url 0 at 31, url 1 at 41, url 2 fails at 51 and 52
    checkers.set("a", 2, true);
    to(53);
    assertThat(ran())
        .containsExactly("1s:0", "11s:1", "21s:1", "31s:0", "41s:1", "51s:2", "52s:2", "53s:2");
    assertThat(verdicts()).containsExactly("11s:DOWN", "53s:UP");
  }

  @Test
  void riseCountsCompleteWalks() {
    start(http(2, T.withAlpha(true).withRise(2)));
    to(11); // walk 1 complete: 1 of 2
    assertThat(states()).isEmpty();
    to(22); // walk 2 starts at the retry pace (12) and completes a delay_loop later
    assertThat(ran()).containsExactly("1s:0", "11s:1", "12s:0", "22s:1");
    assertThat(verdicts()).containsExactly("22s:UP");
  }

  @Test
  void aRefusedRecoveryIsProposedAgainByTheNextCompleteWalk() {
    AtomicInteger refusals = new AtomicInteger();
    rec.refuse = e -> e.alive() && refusals.getAndIncrement() == 0;
    start(http(2, T.withAlpha(true)));
    to(11); // walk complete, the table refuses
    assertThat(states()).isEmpty();
    to(31);
    assertThat(verdicts()).containsExactly("31s:UP");
    assertThat(ran()).containsExactly("1s:0", "11s:1", "21s:0", "31s:1");
  }
}

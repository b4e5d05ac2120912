package io.fairway.daemon.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The status page's read sessions on a clock moved by the test: lifetime, the bound, bad ids. */
class AdminSessionsTest {
  final AtomicLong now = new AtomicLong(1_000);
  final AdminSessions sessions = new AdminSessions(Duration.ofSeconds(10), now::get);

  @Test
  void aSessionLastsItsLifetimeAndNoLonger() {
    String id = sessions.mint();
    assertThat(id).hasSize(64).matches("[0-9a-f]+");
    assertThat(sessions.remainingNanos(id)).isEqualTo(Duration.ofSeconds(10).toNanos());
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    assertThat(sessions.remainingNanos(id)).isEqualTo(Duration.ofSeconds(1).toNanos());
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(sessions.remainingNanos(id)).isZero();
    assertThat(sessions.minted()).isEqualTo(1);
  }

  @Test
  void unknownMalformedAndMissingIdsAreNoSession() {
    String id = sessions.mint();
    assertThat(sessions.remainingNanos(null)).isZero();
    assertThat(sessions.remainingNanos("")).isZero();
    assertThat(sessions.remainingNanos(id.substring(1))).isZero();
    assertThat(sessions.remainingNanos("0".repeat(64))).isZero();
    assertThat(sessions.remainingNanos(id.toUpperCase(Locale.ROOT))).isZero();
  }

  @Test
  void atMostMaxLiveTheOldestGoesFirst() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < AdminSessions.MAX + 1; i++) {
      ids.add(sessions.mint());
      now.incrementAndGet();
    }
    assertThat(new HashSet<>(ids)).hasSize(AdminSessions.MAX + 1);
    assertThat(sessions.remainingNanos(ids.get(0))).as("the oldest, dropped").isZero();
    for (String id : ids.subList(1, ids.size())) {
      assertThat(sessions.remainingNanos(id)).isPositive();
    }
  }

  @Test
  void cookieNamesArePerPortAndLifetimesPositive() {
    assertThat(AdminSessions.cookieName(9107)).isEqualTo("fairway_session_9107");
    assertThatThrownBy(() -> new AdminSessions(Duration.ZERO, now::get))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

package io.fairway.vrrp.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The poll's interface reads: flags every time, the whole interface once a second (no root). */
class LinkWatchTest {
  static final long S = 1_000_000_000L;

  @Test
  void readsWholeOnlyWhenDueOrChanged() throws Exception {
    try (LinkWatch w = LinkWatch.open()) {
      Optional<Link> first = w.get("lo", List.of(), 0);
      assertThat(first).isPresent();
      assertThat(first.get().up()).isTrue();
      assertThat(first.get().index()).isEqualTo(Link.read("lo", List.of()).get().index());
      // Within the second: the same read, flags unchanged.
      assertThat(w.get("lo", List.of(), S / 5).get()).isSameAs(first.get());
      assertThat(w.get("lo", List.of(), S - 1).get()).isSameAs(first.get());
      // Due again: read whole.
      assertThat(w.get("lo", List.of(), S).get()).isNotSameAs(first.get());
      // forget() (a reload): the next poll reads whole.
      Link second = w.get("lo", List.of(), S + 1).get();
      w.forget();
      assertThat(w.get("lo", List.of(), S + 2).get()).isNotSameAs(second);
    }
  }

  @Test
  void aMissingInterfaceIsEmpty() throws Exception {
    try (LinkWatch w = LinkWatch.open()) {
      assertThat(w.get("vrrpopsnosuch0", List.of(), 0)).isEmpty();
    }
  }
}

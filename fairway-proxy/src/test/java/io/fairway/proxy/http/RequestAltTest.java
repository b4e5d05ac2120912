package io.fairway.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code alt_header}'s value: a non-negative decimal count, anything else asks for nothing. */
class RequestAltTest {
  @Test
  void theAltHeaderIsReadAsADecimalCount() {
    assertThat(RequestAlt.parse(null)).isEqualTo(RequestAlt.NONE);
    assertThat(RequestAlt.parse("")).isEqualTo(RequestAlt.NONE);
    assertThat(RequestAlt.parse("-1")).isEqualTo(RequestAlt.NONE);
    assertThat(RequestAlt.parse("1x")).isEqualTo(RequestAlt.NONE);
    assertThat(RequestAlt.parse(" 2 ")).isEqualTo(2);
    assertThat(RequestAlt.parse("0")).isZero();
    assertThat(RequestAlt.parse("99999999999999999999")).isEqualTo(RequestAlt.MAX);
  }
}

package io.fairway.proxy.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.proxy.http2.H2Stats.Flood;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The kinds the GOAWAY's debug data (the error's message, as Netty 4.2 words it) is counted as;
 * Http2FloodTest checks the same through real connections.
 */
class FrameTapTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "Maximum number of RST frames reached|RAPID_RESET",
        "Maximum number 200 of RST frames frames reached within 30 seconds|RESETS_SENT",
        "Maximum number 1000 of outstanding control frames reached|CONTROL_FRAMES",
        "Number of small consecutive continuations frames 16 exceeds maximum: 16|CONTINUATION",
        "Header size exceeded max allowed size (20480)|CONTINUATION",
        "Maximum number 2 of empty data frames without end_of_stream flag received|EMPTY_FRAMES",
        "Frame of type 0 must be associated with a stream.|PROTOCOL",
        "|PROTOCOL"
      })
  void classifiesNettysMessages(String message, Flood kind) {
    assertThat(FrameTap.classify(message == null ? "" : message)).isEqualTo(kind);
  }
}

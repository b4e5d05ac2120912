package io.fairway.proxy;

import io.fairway.proxy.l4.Relay;

/**
 * Every {@link TcpProxyTest} again with the relay switching: a read of 3000 bytes or more starts a
 * splice burst of {@link Relay#SPLICE_BURST}, after which it copies again, so the 6 MiB and 96 MiB
 * downloads and the echoed 20 kB payloads go back and forth between copy and splice mid-stream.
 */
class SplicingAfterThresholdTcpProxyTest extends SplicingTcpProxyTest {
  /** Bursts must really start and end: a 6 MiB download alone needs several. */
  @org.junit.jupiter.api.Test
  void bulkDownloadsSpliceInBursts() throws Exception {
    long before = Relay.SPLICES.sum();
    bulkDownloadEndingInFinArrivesWholeAndIsCounted();
    org.assertj.core.api.Assertions.assertThat(Relay.SPLICES.sum() - before)
        .isGreaterThanOrEqualTo(3 * 5);
  }

  @Override
  ProxyOptions options() {
    return ProxyOptions.builder().spliceThreshold(3000).build();
  }
}

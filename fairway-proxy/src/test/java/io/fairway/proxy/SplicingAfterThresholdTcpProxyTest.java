package io.fairway.proxy;

/**
 * Every {@link TcpProxyTest} again with each direction copying its first 3000 bytes and splicing
 * the rest, so the switch happens inside the bulk transfers and the echoed 20 kB payloads.
 */
class SplicingAfterThresholdTcpProxyTest extends SplicingTcpProxyTest {
  @Override
  ProxyOptions options() {
    return ProxyOptions.defaults().withSpliceThreshold(3000);
  }
}

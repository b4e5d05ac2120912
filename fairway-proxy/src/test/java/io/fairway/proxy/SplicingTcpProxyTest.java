package io.fairway.proxy;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;

/**
 * Every {@link TcpProxyTest} again with the relay splicing: from the first byte here, and {@link
 * SplicingAfterThresholdTcpProxyTest} switching mid-stream. Needs the native epoll transport (Linux
 * x86_64).
 */
class SplicingTcpProxyTest extends TcpProxyTest {
  @BeforeAll
  static void epoll() {
    assumeTrue(Transport.EPOLL, "splice needs Netty's native epoll transport");
  }

  @Override
  ProxyOptions options() {
    return ProxyOptions.builder().spliceThreshold(0).build();
  }
}

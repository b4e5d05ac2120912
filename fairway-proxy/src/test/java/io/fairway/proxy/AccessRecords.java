package io.fairway.proxy;

import io.fairway.proxy.accesslog.AccessRecord;
import java.net.InetSocketAddress;

/** Made-up access-log records for the writer's tests. */
final class AccessRecords {
  private AccessRecords() {}

  static AccessRecord sample(int i) {
    return new AccessRecord(
        1_780_000_000_000L + i,
        new InetSocketAddress("127.0.0.1", 40000 + i),
        "web",
        "127.0.0.2:8080",
        "GET",
        "/item/" + i,
        "HTTP/1.1",
        200,
        100,
        1000,
        0,
        150,
        900,
        1000,
        0,
        null,
        null,
        AccessRecord.Termination.OK);
  }
}

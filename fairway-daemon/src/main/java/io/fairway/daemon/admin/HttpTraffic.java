package io.fairway.daemon.admin;

import io.fairway.apply.ServerBinding;
import io.fairway.apply.ServiceBinding;
import io.fairway.daemon.Daemon;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.HttpStats;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.util.HashMap;
import java.util.Map;

/**
 * A real server's HTTP requests, failures and retries as the runtime API shows them, from the
 * userspace proxy's counters ({@link HttpStats}); a server under several services of a virtual
 * server group is summed. Nothing on the kernel, which does not see requests.
 *
 * @param requests responses to requests scheduled to the server, relayed or made up by the proxy
 * @param errors failures of those requests: connect, timeout, reset and invalid response
 * @param retries requests retried after the server failed before answering
 * @param latency the server's latency histograms, for percentiles over any window a reader keeps
 */
public record HttpTraffic(long requests, long errors, long retries, Latency latency) {

  /**
   * Histograms as counts per bucket (not cumulative; the last bucket is above every bound), so a
   * reader subtracts two reads and has the window's distribution: the status page draws its p99
   * from that.
   *
   * @param boundsSeconds upper bounds of {@code total} and {@code firstByte}'s buckets
   * @param total request head in to response end out
   * @param firstByte request head in to the server's response head
   * @param connectBoundsSeconds upper bounds of {@code connect}'s buckets
   * @param connect new backend connections' connect time
   */
  // Histogram columns copied out of the proxy's counters and rendered; never compared.
  @SuppressWarnings("ArrayRecordComponent")
  public record Latency(
      double[] boundsSeconds,
      long[] total,
      long[] firstByte,
      double[] connectBoundsSeconds,
      long[] connect) {}

  static HttpTraffic of(HttpStats.Snapshot s) {
    long requests = 0;
    for (long n : s.byClass()) {
      requests += n;
    }
    long timeouts = 0;
    for (int i = 0; i < HttpStats.GENERATED_CODES.length; i++) {
      if (HttpStats.GENERATED_CODES[i] == 504) {
        timeouts = s.generated()[i];
      }
    }
    long errors =
        s.connectFailures() + timeouts + s.errors().resets() + s.errors().invalidResponses();
    return new HttpTraffic(
        requests,
        errors,
        s.retries(),
        new Latency(
            s.duration().bounds(),
            s.duration().counts(),
            s.errors().firstByte().counts(),
            s.connect().bounds(),
            s.connect().counts()));
  }

  /** Virtual server name → real server name → its traffic; empty unless on the proxy. */
  static Map<String, Map<String, HttpTraffic>> of(Daemon daemon) {
    Map<String, Map<String, HttpTraffic>> out = new HashMap<>();
    if (!daemon.ready() || !(daemon.applier().table() instanceof ProxyTable proxy)) {
      return out;
    }
    Map<ServiceKey, Map<DestKey, HttpStats.Snapshot>> stats = proxy.httpStats();
    for (ServiceBinding vs : daemon.applier().config().values()) {
      for (ServerBinding rs : vs.servers().values()) {
        HttpStats.Snapshot sum = null;
        for (Service s : vs.services()) {
          HttpStats.Snapshot snap = stats.getOrDefault(s.key(), Map.of()).get(rs.dest().key());
          if (snap != null) {
            sum = sum == null ? snap : sum.plus(snap);
          }
        }
        if (sum != null) {
          out.computeIfAbsent(vs.name(), k -> new HashMap<>()).put(rs.name(), of(sum));
        }
      }
    }
    return out;
  }
}

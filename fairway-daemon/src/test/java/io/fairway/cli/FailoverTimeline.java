package io.fairway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.daemon.Json;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the time of a failover goes, from what each party recorded, in epoch microseconds: the wire
 * seen on the new master's interface ({@code capture.py}: the old master's adverts arriving, the
 * new master's first advert, gratuitous ARP and SYN-ACK leaving, with kernel timestamps), the new
 * master's own account (its event stream's transition time and its log), its addresses ({@code ip
 * -ts monitor address}) and the client's probe ({@code probe.py}).
 *
 * @param killed when the old master was signalled
 * @param lastAdvert the old master's last advert as the new master's interface received it
 * @param takeover the transition to MASTER on the new master's event stream
 * @param logged the "Entering MASTER STATE" line of the new master's log (-1 if not found)
 * @param firstAdvert the new master's first advert on the wire
 * @param vipAdded the virtual address on the new master's interface ({@code ip monitor})
 * @param garp the new master's first gratuitous ARP for the virtual address on the wire
 * @param firstSyn the first SYN for the virtual address to reach the new master
 * @param synAck the first SYN-ACK from the virtual address leaving the new master
 * @param backendSyn the new master's first SYN to the real server after that (its proxy's, or at
 *     times a health check's)
 * @param probeOk the start of the first probe attempt that succeeded after the last failed one
 * @param probeOkEnd when that attempt ended
 * @param probeLastFail the start of the last failed probe attempt
 * @param aroundArp the probe's attempts from one timeout before the gratuitous ARP to the first
 *     good one: "start (ms after the advert) ok|fail after MS (connected in MS) why"
 */
record FailoverTimeline(
    long killed,
    long lastAdvert,
    long takeover,
    long logged,
    long firstAdvert,
    long vipAdded,
    long garp,
    long firstSyn,
    long synAck,
    long backendSyn,
    long probeOk,
    long probeOkEnd,
    long probeLastFail,
    List<String> aroundArp) {

  private static final Pattern MONITOR_TS =
      Pattern.compile("^\\[(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d+)\\] (Deleted )?.*");

  /**
   * @param killedMs when the old master was signalled (epoch ms)
   * @param oldMaster the old master's address
   * @param newMaster the new master's address
   * @param vrid the instance's virtual router id
   * @param vip the virtual address
   * @param instance the instance's name
   * @param realServer the real server's ADDRESS:PORT
   */
  static FailoverTimeline of(
      long killedMs,
      String oldMaster,
      String newMaster,
      int vrid,
      String vip,
      String instance,
      String realServer,
      List<String> capture,
      List<String> monitor,
      String events,
      String log,
      List<String> probe)
      throws IOException {
    long killed = killedMs * 1000;
    long firstAdvert =
        first(capture, killed, "out vrrp " + newMaster + " " + vrid + " ")
            .orElseThrow(() -> new IOException("no advert from " + newMaster + " after the kill"));
    long lastAdvert = -1;
    for (String l : capture) {
      long at = stamp(l);
      if (at >= 0 && at < firstAdvert && l.contains(" in vrrp " + oldMaster + " " + vrid + " ")) {
        lastAdvert = at;
      }
    }
    if (lastAdvert < 0) {
      throw new IOException("no advert from " + oldMaster + " in the capture");
    }
    long vipAdded = -1;
    for (String l : monitor) {
      Matcher m = MONITOR_TS.matcher(l);
      if (m.matches() && m.group(2) == null && l.contains(" " + vip + "/")) {
        long at = micros(LocalDateTime.parse(m.group(1)));
        if (at >= killed) {
          vipAdded = at;
          break;
        }
      }
    }
    long takeover = -1;
    for (String l : events.split("\n")) {
      if (!l.startsWith("data: {")) {
        continue;
      }
      JsonNode e = Json.mapper().readTree(l.substring("data: ".length()));
      if (instance.equals(e.path("instance").asText()) && "master".equals(e.path("to").asText())) {
        long at = micros(Instant.parse(e.get("time").asText()));
        if (at >= killed - 1000) {
          takeover = at;
          break;
        }
      }
    }
    long logged = -1;
    for (String l : log.split("\n")) {
      if (l.contains("(" + instance + ") Entering MASTER STATE")) {
        long at = micros(OffsetDateTime.parse(l.substring(0, l.indexOf(' '))).toInstant());
        if (at >= killed - 1000) {
          logged = at;
          break;
        }
      }
    }
    long garp = first(capture, killed, "out arp request " + vip + " " + vip + " ").orElse(-1);
    long firstSyn = first(capture, killed, "in syn ", " " + vip + ":").orElse(-1);
    long synAck = first(capture, killed, "out synack " + vip + ":").orElse(-1);
    long backendSyn =
        synAck < 0 ? -1 : first(capture, synAck, "out syn ", " " + realServer).orElse(-1);

    List<long[]> attempts = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    for (String l : probe) {
      String[] f = l.split(" ", 5);
      if (f.length >= 4) {
        attempts.add(
            new long[] {
              Long.parseLong(f[0]) * 1000,
              f[1].equals("ok") ? 1 : 0,
              Long.parseLong(f[2]) * 1000,
              lines.size()
            });
        lines.add(
            f[1]
                + " after "
                + f[2]
                + " ms ("
                + (f[3].equals("-1") ? "not connected" : "connected in " + f[3] + " ms")
                + ")"
                + (f.length > 4 ? " " + f[4] : ""));
      }
    }
    attempts.sort(Comparator.comparingLong(a -> a[0]));
    long lastFail = -1;
    for (long[] a : attempts) {
      if (a[1] == 0) {
        lastFail = a[0];
      }
    }
    long ok = -1;
    long okEnd = -1;
    for (long[] a : attempts) {
      if (a[0] > lastFail && a[1] == 1) {
        ok = a[0];
        okEnd = a[0] + a[2];
        break;
      }
    }
    List<String> around = new ArrayList<>();
    for (long[] a : attempts) {
      if (garp >= 0 && a[0] >= garp - 250_000 && a[0] <= ok) {
        around.add(ms(a[0], lastAdvert) + " " + lines.get((int) a[3]));
      }
    }
    return new FailoverTimeline(
        killed,
        lastAdvert,
        takeover,
        logged,
        firstAdvert,
        vipAdded,
        garp,
        firstSyn,
        synAck,
        backendSyn,
        ok,
        okEnd,
        lastFail,
        List.copyOf(around));
  }

  /** The first capture line at or after {@code from} that contains every one of {@code parts}. */
  private static OptionalLong first(List<String> capture, long from, String... parts) {
    outer:
    for (String l : capture) {
      long at = stamp(l);
      if (at < from) {
        continue;
      }
      for (String p : parts) {
        if (!l.contains(p)) {
          continue outer;
        }
      }
      return OptionalLong.of(at);
    }
    return OptionalLong.empty();
  }

  private static long stamp(String captureLine) {
    int sp = captureLine.indexOf(' ');
    if (sp <= 0 || captureLine.startsWith("#")) {
      return -1;
    }
    return Long.parseLong(captureLine.substring(0, sp));
  }

  private static long micros(Instant i) {
    return i.getEpochSecond() * 1_000_000 + i.getNano() / 1000;
  }

  /** {@code ip -ts} prints local time. */
  private static long micros(LocalDateTime t) {
    return micros(t.atZone(ZoneId.systemDefault()).toInstant());
  }

  /** {@code at} in ms after {@code from}, one decimal; "-" when {@code at} was not seen. */
  static String ms(long at, long from) {
    return at < 0 ? "-" : String.format("%+.1f", (at - from) / 1000.0);
  }

  /** The breakdown, each piece after the old master's last advert and after the kill. */
  String report() {
    StringBuilder s = new StringBuilder();
    s.append(String.format("%-52s %12s %12s%n", "", "after advert", "after kill"));
    Object[][] rows = {
      {"kill -9 of the old master", killed},
      {"its last advert, received by the new master", lastAdvert},
      {"transition to MASTER (event stream)", takeover},
      {"\"Entering MASTER STATE\" (log, ms)", logged},
      {"first advert of the new master (wire)", firstAdvert},
      {"virtual address added (ip monitor)", vipAdded},
      {"first gratuitous ARP (wire)", garp},
      {"first SYN to the virtual address reaches it (wire)", firstSyn},
      {"first SYN-ACK from the virtual address (wire)", synAck},
      {"then its first SYN to the real server (wire)", backendSyn},
      {"last failed probe attempt started", probeLastFail},
      {"first good probe attempt started", probeOk},
      {"  ... and ended", probeOkEnd},
    };
    for (Object[] r : rows) {
      long at = (long) r[1];
      s.append(String.format("%-52s %12s %12s%n", r[0], ms(at, lastAdvert), ms(at, killed)));
    }
    s.append(
            "probe attempts from 250 ms before the ARP to the first good one (ms after the advert):")
        .append(System.lineSeparator());
    for (String a : aroundArp) {
      s.append("  ").append(a).append(System.lineSeparator());
    }
    return s.toString();
  }
}

package io.fairway.plan;

import io.fairway.table.Endpoints;
import io.fairway.table.Service;
import java.util.Locale;

/**
 * The plan as text: what {@code check-config --dump} appends after the effective configuration, as
 * comment lines so the dump still loads. One block per service: its table services, the selection
 * with every parameter explicit, the key, each member's name, ident, weight and both ports (the one
 * IPVS gets and the one the checkers check), and the sorry server.
 */
public final class PlanFormat {
  private PlanFormat() {}

  /** The plan as {@code #} comment lines. */
  public static String comment(Plan plan) {
    StringBuilder b = new StringBuilder();
    b.append("# plan (what run, pick and status act on)\n");
    for (ServicePlan s : plan.services()) {
      service(b, s);
    }
    Plan.Timeouts t = plan.timeouts();
    if (!t.equals(Plan.Timeouts.NONE)) {
      timeouts(b, t);
    }
    plan.sync().ifPresent(y -> sync(b, y));
    return b.toString();
  }

  /** One service's block: its table services, selection, key, members, sorry server, quorum. */
  private static void service(StringBuilder b, ServicePlan s) {
    b.append("# virtual_server ").append(s.name()).append(" (").append(s.where()).append(")\n");
    for (Service t : s.services()) {
      b.append("#   service ").append(t.key()).append(" scheduler ").append(t.scheduler());
      if (t.timeout() > 0) {
        b.append(" persistence ").append(t.timeout()).append("s/").append(t.netmask());
      }
      b.append('\n');
    }
    b.append("#   lb_kind ").append(s.lbKind()).append('\n');
    b.append("#   selection ").append(s.selection().describe()).append('\n');
    b.append("#   key ").append(s.key()).append('\n');
    for (MemberPlan m : s.members()) {
      member(b, m);
    }
    s.sorry()
        .ifPresent(
            o ->
                b.append("#   sorry_server ")
                    .append(Endpoints.format(o.dest().address(), o.dest().port()))
                    .append(o.inhibit() ? " inhibit" : "")
                    .append(o.overflow() ? " overflow" : "")
                    .append('\n'));
    b.append("#   quorum ")
        .append(s.quorum())
        .append(" hysteresis ")
        .append(s.hysteresis())
        .append('\n');
  }

  private static void member(StringBuilder b, MemberPlan m) {
    b.append(
        String.format(
            Locale.ROOT,
            "#   member %s ident %s weight %s address %s ipvs_port %d check_port %d %s%s%s%n",
            m.name(),
            m.ident(),
            trim(m.weight()),
            m.address().getHostAddress(),
            m.tablePort(),
            m.checkPort(),
            m.dest().forwarding(),
            m.inhibit() ? " inhibit" : "",
            m.slowStart().isZero()
                ? ""
                : " slow_start " + m.slowStart().toMillis() / 1000.0 + "s"));
  }

  private static void timeouts(StringBuilder b, Plan.Timeouts t) {
    b.append("# lvs_timeouts tcp ")
        .append(t.tcp().toSeconds())
        .append(" tcpfin ")
        .append(t.tcpFin().toSeconds())
        .append(" udp ")
        .append(t.udp().toSeconds())
        .append('\n');
  }

  /** The sync daemon with the kernel's defaults written out for the parameters left at 0. */
  private static void sync(StringBuilder b, Plan.Sync y) {
    b.append("# lvs_sync_daemon interface ")
        .append(y.interfaceName())
        .append(" syncid ")
        .append(y.syncId())
        .append(" maxlen ")
        .append(y.maxLen() == 0 ? "kernel" : Integer.toString(y.maxLen()))
        .append(" port ")
        .append(y.port() == 0 ? "8848" : Integer.toString(y.port()))
        .append(" ttl ")
        .append(y.ttl() == 0 ? "1" : Integer.toString(y.ttl()))
        .append(" group ")
        .append(y.group().map(Endpoints::formatAddress).orElse("224.0.0.81"))
        .append(
            y.instance()
                .map(i -> " follows vrrp_instance " + i)
                .orElse(" master and backup always"))
        .append('\n');
  }

  private static String trim(double w) {
    return w == Math.rint(w) ? Long.toString((long) w) : Double.toString(w);
  }
}

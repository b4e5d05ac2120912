package io.fairway.daemon;

import io.fairway.apply.ServerBinding;
import io.fairway.apply.ServiceBinding;
import io.fairway.apply.TrackedFile;
import io.fairway.config.model.Config;
import io.fairway.config.model.FileCheck;
import io.fairway.config.model.TrackFile;
import io.fairway.plan.MemberPlan;
import io.fairway.plan.Plan;
import io.fairway.plan.Selection;
import io.fairway.plan.ServicePlan;
import io.fairway.table.Dest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns the plan into the applier's bindings: each service plan into its table services and its
 * members and sorry server into destinations. The plan already decided every value; this only
 * checks that the chosen table can run it.
 */
final class TableBinding {
  private TableBinding() {}

  /** A configuration the chosen table cannot run; the message names the virtual server. */
  static final class BindingException extends Exception {
    private static final long serialVersionUID = 1L;

    BindingException(String message) {
      super(message);
    }
  }

  /**
   * @param config the model the plan was built from, for the real servers' track_file entries
   * @param userspace whether the table is Fairway's proxy, which also takes the Varnish director
   *     names and {@code lb_kind PROXY|HTTP}; the kernel takes neither
   */
  static Map<String, ServiceBinding> bind(Plan plan, Config config, boolean userspace)
      throws BindingException {
    Map<String, ServiceBinding> out = new LinkedHashMap<>();
    for (ServicePlan sp : plan.services()) {
      String where = sp.where() + ": virtual_server " + sp.name();
      if (!userspace && !sp.lbKind().isKernel()) {
        throw new BindingException(
            where
                + ": lb_kind "
                + sp.lbKind()
                + " is Fairway's userspace data plane; run with --userspace");
      }
      if (!userspace && sp.selection() instanceof Selection.Varnish) {
        throw new BindingException(
            where
                + ": lb_algo "
                + sp.selection().algorithm()
                + " is a Varnish director, which the kernel does not have; run with --userspace");
      }
      List<ServerBinding> servers = new ArrayList<>();
      for (MemberPlan m : sp.members()) {
        servers.add(
            new ServerBinding(
                m.name(), m.dest(), m.inhibit(), m.tableWeight(), m.slowStart(), m.tier()));
      }
      Dest sorry = sp.sorry().map(s -> s.dest()).orElse(null);
      boolean sorryInhibit = sp.sorry().map(s -> s.inhibit()).orElse(false);
      boolean overflow = sp.sorry().map(s -> s.overflow()).orElse(false);
      out.put(
          sp.name(),
          new ServiceBinding(
              sp.name(),
              sp.services(),
              ServiceBinding.byName(servers),
              sorry,
              sorryInhibit,
              tracked(config, sp.name()),
              overflow));
    }
    return out;
  }

  private static List<TrackedFile> tracked(Config config, String vsName) {
    List<TrackedFile> tracked = new ArrayList<>();
    config
        .virtualServer(vsName)
        .ifPresent(
            vs -> {
              for (io.fairway.config.model.RealServer rs : vs.realServers()) {
                for (io.fairway.config.model.HealthCheck c : rs.checkers()) {
                  if (c instanceof FileCheck f) {
                    Optional<TrackFile> tf = config.trackFile(f.trackFile());
                    tracked.add(
                        new TrackedFile(
                            rs.name(),
                            tf.map(TrackFile::file).orElse(f.trackFile()),
                            f.weight(),
                            f.reverse()));
                  }
                }
              }
            });
    return tracked;
  }
}

package io.fairway.config;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** Keyword sets keepalived knows but Fairway ignores, and "did you mean" for the rest. */
final class Keywords {
  private Keywords() {}

  /** Top-level blocks of keepalived's other daemons (VRRP, BFD): parsed, reported, skipped. */
  static final Set<String> IGNORED_TOP_BLOCKS =
      Set.of(
          "vrrp_track_process",
          "bfd_instance",
          "static_ipaddress",
          "static_routes",
          "static_rules",
          "garp_group",
          "linkbeat_interfaces");

  /** Top-level keywords of keepalived that do not concern Fairway. */
  static final Set<String> IGNORED_TOP_KEYWORDS =
      Set.of(
          "net_namespace",
          "net_namespace_ipvs",
          "instance",
          "use_pid_dir",
          "linkbeat_use_polling",
          "namespace_with_ipsets");

  /** global_defs keywords Fairway does not act on (VRRP, SNMP, process tuning, ...). */
  static final Set<String> IGNORED_GLOBAL =
      Set.of(
          "smtp_helo_name",
          "smtp_alert_vrrp",
          "smtp_alert_checker",
          "default_interface",
          "lvs_notify_fifo",
          "lvs_notify_fifo_script",
          "notify_fifo",
          "notify_fifo_script",
          "vrrp_notify_fifo",
          "vrrp_notify_fifo_script",
          "lvs_netlink_cmd_rcv_bufs",
          "lvs_netlink_cmd_rcv_bufs_force",
          "lvs_netlink_monitor_rcv_bufs",
          "lvs_netlink_monitor_rcv_bufs_force",
          "process_monitor_rcv_bufs",
          "process_monitor_rcv_bufs_force",
          "vrrp_mcast_group4",
          "vrrp_mcast_group6",
          "vrrp_garp_master_delay",
          "vrrp_garp_master_repeat",
          "vrrp_garp_lower_prio_delay",
          "vrrp_garp_lower_prio_repeat",
          "vrrp_garp_master_refresh",
          "vrrp_garp_master_refresh_repeat",
          "vrrp_garp_interval",
          "vrrp_gna_interval",
          "vrrp_min_garp",
          "vrrp_lower_prio_no_advert",
          "vrrp_higher_prio_send_advert",
          "vrrp_version",
          "vrrp_iptables",
          "vrrp_ipsets",
          "vrrp_check_unicast_src",
          "vrrp_skip_check_adv_addr",
          "vrrp_strict",
          "vrrp_priority",
          "vrrp_no_swap",
          "vrrp_rt_priority",
          "vrrp_rlimit_rttime",
          "vrrp_cpu_affinity",
          "vrrp_process_name",
          "vrrp_netlink_cmd_rcv_bufs",
          "vrrp_netlink_cmd_rcv_bufs_force",
          "vrrp_netlink_monitor_rcv_bufs",
          "vrrp_netlink_monitor_rcv_bufs_force",
          "vrrp_rx_bufs_policy",
          "vrrp_rx_bufs_multiplier",
          "vrrp_startup_delay",
          "vrrp_down_timer_adverts",
          "vrrp_garp_extra_if",
          "vrrp_notify_priority_changes",
          "vrrp_track_process",
          "checker_priority",
          "checker_no_swap",
          "checker_rt_priority",
          "checker_rlimit_rttime",
          "checker_cpu_affinity",
          "checker_process_name",
          "bfd_priority",
          "bfd_no_swap",
          "bfd_rt_priority",
          "bfd_rlimit_rttime",
          "bfd_cpu_affinity",
          "bfd_process_name",
          "snmp_socket",
          "enable_snmp_vrrp",
          "enable_snmp_checker",
          "enable_snmp_rfc",
          "enable_snmp_rfcv2",
          "enable_snmp_rfcv3",
          "enable_snmp_keepalived",
          "enable_traps",
          "enable_dbus",
          "dbus_service_name",
          "dynamic_interfaces",
          "no_email_faults",
          "max_auto_priority",
          "min_auto_priority_delay",
          "umask",
          "random_seed",
          "reload_check_config",
          "reload_time_file",
          "reload_repeat",
          "reload_file",
          "config_save_dir",
          "tmp_config_directory",
          "data_use_instance",
          "startup_script",
          "startup_script_timeout",
          "shutdown_script",
          "shutdown_script_timeout",
          "nftables",
          "nftables_priority",
          "nftables_ifindex",
          "nftables_counters",
          "nftables_ipvs",
          "nftables_ipvs_priority",
          "nftables_ipvs_start_fwmark",
          "fifo_write_vrrp_states_on_reload",
          "vrrp_owner_ignore_adverts",
          "use_symlink_paths",
          "child_wait_time",
          "log_unknown_vrids",
          "include_check",
          "disable_local_igmp",
          "vmac_prefix",
          "vmac_addr_prefix",
          "linkbeat_use_polling",
          "net_namespace",
          "local_name",
          "vrrp_mcast_group",
          "lvs_id",
          "smtp_timeout",
          "cpu_affinity");

  /** The closest candidate within a small edit distance, for "did you mean". */
  static Optional<String> suggest(String word, Collection<String> candidates) {
    String best = null;
    int bestD = Integer.MAX_VALUE;
    int limit = Math.max(2, word.length() / 3);
    for (String c : candidates) {
      if (Math.abs(c.length() - word.length()) > limit) {
        continue;
      }
      int d = distance(word.toLowerCase(Locale.ROOT), c.toLowerCase(Locale.ROOT));
      if (d < bestD || (d == bestD && best != null && c.compareTo(best) < 0)) {
        bestD = d;
        best = c;
      }
    }
    return bestD <= limit ? Optional.ofNullable(best) : Optional.empty();
  }

  /** Levenshtein distance with transpositions counted as one edit. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        boolean swapped =
            i > 1
                && j > 1
                && a.charAt(i - 1) == b.charAt(j - 2)
                && a.charAt(i - 2) == b.charAt(j - 1);
        if (swapped) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}

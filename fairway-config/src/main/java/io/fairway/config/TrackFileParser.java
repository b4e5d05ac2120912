package io.fairway.config;

import io.fairway.config.model.TrackFile;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Top-level {@code track_file NAME { file; weight; init_file }} blocks, which FILE_CHECK follows by
 * name.
 */
final class TrackFileParser {
  private final Values v;
  private final Map<String, TrackFile> trackFiles;

  TrackFileParser(Values v, Map<String, TrackFile> trackFiles) {
    this.v = v;
    this.trackFiles = trackFiles;
  }

  void trackFile(Node n) {
    if (n.argc() != 1) {
      v.error(n, n.keyword() + " needs exactly one name");
      return;
    }
    if (!v.block(n)) {
      return;
    }
    if (n.keyword().equals("vrrp_track_file")) {
      v.warn(n, "vrrp_track_file is keepalived's old name for track_file");
    }
    String name = n.arg(1);
    String file = null;
    int weight = 1;
    boolean reverse = false;
    Optional<Long> init = Optional.empty();
    boolean overwrite = false;
    for (Node c : n.children) {
      switch (c.keyword()) {
        case "file":
          if (v.args(c, 1, 1)) {
            file = c.arg(1);
          }
          break;
        case "weight":
          {
            if (!v.args(c, 1, 2)) {
              break;
            }
            Long w = v.signed(c, 1, -254, 254, "weight");
            if (w != null) {
              weight = w.intValue();
            }
            if (c.argc() == 2) {
              if (c.arg(2).equals("reverse")) {
                reverse = true;
              } else if (!c.arg(2).equals("noreverse")) {
                v.error(c, "weight: expected 'reverse' or 'noreverse', got '" + c.arg(2) + "'");
              }
            }
            break;
          }
        case "init_file":
          {
            if (!v.args(c, 0, 2)) {
              break;
            }
            long val = 0;
            for (int i = 1; i <= c.argc(); i++) {
              if (c.arg(i).equals("overwrite")) {
                overwrite = true;
              } else {
                Long x = v.signed(c, i, Integer.MIN_VALUE, Integer.MAX_VALUE, "value");
                if (x != null) {
                  val = x;
                }
              }
            }
            init = Optional.of(val);
            break;
          }
        default:
          v.unknown(c, Set.of("file", "weight", "init_file"), "track_file");
      }
    }
    if (file == null) {
      v.error(n, "track_file " + name + " has no 'file'");
      return;
    }
    if (trackFiles.containsKey(name)) {
      v.error(n, "duplicate track_file '" + name + "'");
      return;
    }
    trackFiles.put(
        name, new TrackFile(Values.loc(n), name, file, weight, reverse, init, overwrite));
  }
}

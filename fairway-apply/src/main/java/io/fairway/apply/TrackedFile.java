package io.fairway.apply;

import java.util.Objects;

/**
 * One real_server track_file entry.
 *
 * <p>The weight comes from a file rather than a probe, which is how an operator drains a backend
 * for maintenance: write to the file and the weight drops, without editing the configuration or
 * stopping the process the checkers probe.
 *
 * @param realServer the backend the weight applies to
 * @param file the track_file name, resolved to a path elsewhere
 * @param weight the contribution, following the same rules as a VRRP instance's track_file
 * @param reverse whether the file's value counts negatively
 */
public record TrackedFile(String realServer, String file, int weight, boolean reverse) {

  /** keepalived's IPVS_WEIGHT_FAULT: a contribution at or below it takes the server down. */
  public static final long FAULT = Integer.MIN_VALUE;

  public TrackedFile {
    Objects.requireNonNull(realServer, "realServer");
    Objects.requireNonNull(file, "file");
  }

  /**
   * The contribution of a file value to the server's effective weight, as keepalived computes it
   * (track_file.c): with weight 0 any non-zero value is a fault; otherwise value × weight, negated
   * when reversed. A result at or below {@link #FAULT} means the server is down.
   */
  public long contribution(long value) {
    if (weight == 0) {
      return value == 0 ? 0 : FAULT;
    }
    long status = value * weight * (reverse ? -1L : 1L);
    return Math.max(status, FAULT);
  }
}

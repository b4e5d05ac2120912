package io.fairway.config.model.vrrp;

import io.fairway.config.model.base.Location;
import io.fairway.config.model.base.Script;
import java.time.Duration;

/**
 * {@code vrrp_script NAME { script CMD; interval; timeout; weight N [reverse]; rise; fall; user;
 * init_fail }}.
 *
 * @param script the command (and its {@code user [group]})
 * @param interval between runs (default 1 s)
 * @param timeout a run that takes longer fails (default: the interval)
 * @param weight -253..253; positive adds while it succeeds, negative subtracts while it fails; 0
 *     puts the instance in FAULT while it fails
 * @param reverse {@code weight N reverse}
 * @param rise successes before a failed script is good again (1)
 * @param fall failures before a good script is failed (1)
 * @param initFail start in the failed state ({@code init_fail})
 */
public record VrrpScript(
    Location location,
    String name,
    Script script,
    Duration interval,
    Duration timeout,
    int weight,
    boolean reverse,
    int rise,
    int fall,
    boolean initFail) {}

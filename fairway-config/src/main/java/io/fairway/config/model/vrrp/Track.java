package io.fairway.config.model.vrrp;

import java.util.Optional;

/**
 * One entry of {@code track_script}, {@code track_interface} or {@code track_file}: {@code NAME
 * [weight N [reverse]]}.
 *
 * @param name the script, interface or track_file name
 * @param weight the weight given here (overrides the script's own); empty: the tracked object's
 *     default
 * @param reverse {@code reverse}: the weight counts the other way round
 */
public record Track(String name, Optional<Integer> weight, boolean reverse) {}

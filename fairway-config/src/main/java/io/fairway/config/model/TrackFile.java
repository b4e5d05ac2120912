package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.util.Optional;

/**
 * A top-level {@code track_file NAME { file PATH; weight W [reverse]; init_file [VAL] [overwrite]
 * }}.
 *
 * @param name the name FILE_CHECK refers to
 * @param file the file whose integer content is read
 * @param weight the default multiplier (-254..254, default 1)
 * @param reverse negate by default
 * @param initValue create the file with this value at startup, if {@code init_file} is given
 * @param overwrite overwrite an existing file with the init value
 */
public record TrackFile(
    Location location,
    String name,
    String file,
    int weight,
    boolean reverse,
    Optional<Long> initValue,
    boolean overwrite) {}

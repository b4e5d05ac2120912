package io.fairway.config;

import io.fairway.config.model.TrackFile;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

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
    Block b = new Block(v);
    for (Node c : n.block()) {
      if (!Block.TABLE.dispatch(b, c)) {
        v.unknown(c, Block.TABLE.known(), "track_file");
      }
    }
    if (b.file == null) {
      v.error(n, "track_file " + name + " has no 'file'");
      return;
    }
    if (trackFiles.containsKey(name)) {
      v.error(n, "duplicate track_file '" + name + "'");
      return;
    }
    trackFiles.put(
        name, new TrackFile(Values.loc(n), name, b.file, b.weight, b.reverse, b.init, b.overwrite));
  }

  /** A track_file block as written: its keyword table and the state its handlers fill. */
  private static final class Block {
    static final KeywordTable<Block> TABLE =
        new KeywordTable<Block>()
            .on("file", Block::file)
            .on("weight", Block::weight)
            .on("init_file", Block::initFile);

    final Values v;
    @Nullable String file;
    int weight = 1;
    boolean reverse;
    Optional<Long> init = Optional.empty();
    boolean overwrite;

    Block(Values v) {
      this.v = v;
    }

    private static void file(Block b, Node c) {
      if (b.v.args(c, 1, 1)) {
        b.file = c.arg(1);
      }
    }

    /** {@code weight N [reverse|noreverse]}. */
    private static void weight(Block b, Node c) {
      if (!b.v.args(c, 1, 2)) {
        return;
      }
      Long w = b.v.signed(c, 1, -254, 254, "weight");
      if (w != null) {
        b.weight = w.intValue();
      }
      if (c.argc() == 2) {
        if (c.arg(2).equals("reverse")) {
          b.reverse = true;
        } else if (!c.arg(2).equals("noreverse")) {
          b.v.error(c, "weight: expected 'reverse' or 'noreverse', got '" + c.arg(2) + "'");
        }
      }
    }

    /** {@code init_file [VALUE] [overwrite]}, in either order. */
    private static void initFile(Block b, Node c) {
      if (!b.v.args(c, 0, 2)) {
        return;
      }
      long val = 0;
      for (int i = 1; i <= c.argc(); i++) {
        if (c.arg(i).equals("overwrite")) {
          b.overwrite = true;
        } else {
          Long x = b.v.signed(c, i, Integer.MIN_VALUE, Integer.MAX_VALUE, "value");
          if (x != null) {
            val = x;
          }
        }
      }
      b.init = Optional.of(val);
    }
  }
}

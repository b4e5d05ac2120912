package io.fairway.config;

import io.fairway.config.model.base.Script;
import io.fairway.config.model.vrrp.VrrpScript;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A vrrp_script block as written: the keyword table and the state its handlers fill. Scripts are
 * read as they come, before any instance, because an instance's track_script names one.
 */
final class VrrpScriptBlock {
  final Values v;
  @Nullable Script script;
  Duration interval = Duration.ofSeconds(1);
  @Nullable Duration timeout;
  int weight;
  boolean reverse;
  int rise = 1;
  int fall = 1;
  boolean initFail;
  Optional<String> user = Optional.empty();
  Optional<String> group = Optional.empty();

  private VrrpScriptBlock(Values v) {
    this.v = v;
  }

  private static final KeywordTable<VrrpScriptBlock> TABLE = table();

  /** The keywords of a vrrp_script block, for suggestions. */
  static Set<String> keywords() {
    return TABLE.known();
  }

  private static KeywordTable<VrrpScriptBlock> table() {
    KeywordTable<VrrpScriptBlock> t = new KeywordTable<>();
    t.on("script", VrrpScriptBlock::scriptLine);
    t.on(
        List.of("interval", "timeout"),
        (s, c) -> {
          Duration d = s.v.args(c, 1, 1) ? s.v.timer(c, 1, false) : null;
          if (d != null && c.keyword().equals("interval")) {
            s.interval = d;
          } else if (d != null) {
            s.timeout = d;
          }
        });
    t.on("weight", VrrpScriptBlock::scriptWeight);
    t.on(
        List.of("rise", "fall"),
        (s, c) -> {
          Long x = s.v.args(c, 1, 1) ? s.v.number(c, 1, 1, Values.INT32_MAX, c.keyword()) : null;
          if (x != null && c.keyword().equals("rise")) {
            s.rise = x.intValue();
          } else if (x != null) {
            s.fall = x.intValue();
          }
        });
    t.on(
        "user",
        (s, c) -> {
          if (s.v.args(c, 1, 2)) {
            s.user = Optional.of(c.arg(1));
            s.group = c.argc() == 2 ? Optional.of(c.arg(2)) : Optional.empty();
          }
        });
    t.on(
        "init_fail",
        (s, c) -> {
          if (s.v.args(c, 0, 0)) {
            s.initFail = true;
          }
        });
    return t;
  }

  private static void scriptLine(VrrpScriptBlock s, Node c) {
    List<String> words = Tokenizer.quotedWords(c.line.text());
    List<String> argv =
        words.size() == 2 ? Tokenizer.argv(words.get(1)) : words.subList(1, words.size());
    if (c.hasBlock() || argv.isEmpty()) {
      s.v.error(c, "script needs a command");
    } else {
      s.script =
          new Script(
              String.join(" ", words.subList(1, words.size())),
              argv,
              Optional.empty(),
              Optional.empty());
    }
  }

  private static void scriptWeight(VrrpScriptBlock s, Node c) {
    if (s.v.args(c, 1, 2)) {
      Long w = s.v.signed(c, 1, -253, 253, "weight");
      if (w != null) {
        s.weight = w.intValue();
      }
      if (c.argc() == 2) {
        if (c.arg(2).equals("reverse")) {
          s.reverse = true;
        } else {
          s.v.error(c, "weight: expected 'reverse', got '" + c.arg(2) + "'");
        }
      }
    }
  }

  /** Reads the vrrp_script block {@code n} into {@code scripts}, or says why it cannot. */
  static void read(Values v, Node n, Map<String, VrrpScript> scripts) {
    if (n.argc() != 1) {
      v.error(n, "vrrp_script needs exactly one name");
      return;
    }
    if (!v.block(n)) {
      return;
    }
    String name = n.arg(1);
    VrrpScriptBlock s = new VrrpScriptBlock(v);
    for (Node c : n.block()) {
      if (!TABLE.dispatch(s, c)) {
        v.unknown(c, TABLE.known(), "vrrp_script");
      }
    }
    if (s.script == null) {
      v.error(n, "vrrp_script " + name + " has no 'script'");
      return;
    }
    if (scripts.containsKey(name)) {
      v.error(
          n,
          "duplicate vrrp_script '" + name + "' (first at " + scripts.get(name).location() + ")");
      return;
    }
    Script script = new Script(s.script.command(), s.script.argv(), s.user, s.group);
    scripts.put(
        name,
        new VrrpScript(
            Values.loc(n),
            name,
            script,
            s.interval,
            s.timeout == null ? s.interval : s.timeout,
            s.weight,
            s.reverse,
            s.rise,
            s.fall,
            s.initFail));
  }
}

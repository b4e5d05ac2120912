package io.fairway.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A keyword line and, if the next logical line opened a block, the lines inside it. The parser
 * reads blocks generically first and gives them meaning afterwards, so brace errors are reported
 * once, precisely, whatever the keyword.
 */
final class Node {
  final Preprocessor.Line line;
  final List<String> words;

  /** Null when the keyword has no block. */
  @Nullable List<Node> children;

  Node(Preprocessor.Line line, List<String> words) {
    this.line = line;
    this.words = words;
  }

  String keyword() {
    return words.get(0);
  }

  boolean hasBlock() {
    return children != null;
  }

  /** The lines of this node's block, for callers that have checked it has one. */
  List<Node> block() {
    return Objects.requireNonNull(children, "the caller checked that the node opens a block");
  }

  int argc() {
    return words.size() - 1;
  }

  String arg(int i) {
    return words.get(i);
  }

  /** Builds the block tree; brace errors go to {@code diags}. */
  static List<Node> tree(List<Preprocessor.Line> lines, Diagnostics diags) {
    List<Node> top = new ArrayList<>();
    List<List<Node>> stack = new ArrayList<>();
    List<Node> openers = new ArrayList<>();
    List<Node> cur = top;
    Node last = null;
    for (Preprocessor.Line l : lines) {
      String t = l.text();
      if (t.equals("{")) {
        if (last == null || last.children != null) {
          diags.error(l.file(), l.line(), "'{' without a keyword before it", t);
          // Parse the contents anyway, at a throw-away level, so that the closing brace matches.
          Node dummy = new Node(l, List.of("{"));
          dummy.children = new ArrayList<>();
          stack.add(cur);
          openers.add(dummy);
          cur = dummy.children;
          last = null;
          continue;
        }
        last.children = new ArrayList<>();
        stack.add(cur);
        openers.add(last);
        cur = last.children;
        last = null;
      } else if (t.equals("}")) {
        if (stack.isEmpty()) {
          diags.error(l.file(), l.line(), "unbalanced '}': no block is open", t);
          last = null;
          continue;
        }
        cur = stack.remove(stack.size() - 1);
        last = openers.remove(openers.size() - 1);
        if (last.keyword().equals("{")) {
          last = null;
        }
      } else {
        List<String> words = Tokenizer.tokens(t);
        if (words.isEmpty()) {
          continue;
        }
        last = new Node(l, words);
        cur.add(last);
      }
    }
    for (Node open : openers) {
      diags.error(
          open.line.file(),
          open.line.line(),
          "unbalanced '{': block '" + open.keyword() + "' is never closed",
          open.line.text());
    }
    return top;
  }
}

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The shape of the main code, from its sources: the longest methods, each module's longest method
 * and largest classes, the classes over the size limit, package import cycles across the tree, and
 * simple class names that exist in more than one module. Prints each; exits 1 when a goal is missed
 * (the goals are issue 33's "done when").
 *
 * <p>A reading of the source text, not a compiler: a method is a declaration that ends with an
 * opening brace (on its first line, or on a later one when the formatter wrapped the signature after
 * a parenthesis or a comma), up to its matching brace (braces in strings and comments are skipped);
 * an import edge is an {@code import io.fairway...} line or an inline {@code io.fairway.x.Y} name,
 * Javadoc-only imports included, since they hold a cycle just the same.
 */
public class ShapeCheck {
    static final int MAX_METHOD = 80;
    static final int MAX_CLASS = 600;
    static final int MAX_SIGNATURE_LINES = 12;
    static final int TOP_CLASSES = 3;
    static final Pattern METHOD = Pattern.compile(
            "^\\s++(?!if\\b|for\\b|while\\b|switch\\b|catch\\b|else\\b|try\\b|do\\b|return\\b|new\\b|synchronized\\s*\\()"
                    + "[\\w<>\\[\\],.? @]*\\b(\\w+)\\s*\\([^;=]*\\)\\s*(throws [\\w., ]+)?\\{\\s*$");
    static final Pattern PKG = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
    static final Pattern REF = Pattern.compile("\\b(io\\.fairway(?:\\.[a-z]\\w*)+)\\.[A-Z]\\w*");

    record Method(Path file, String name, int line, int length) {}

    public static void main(String[] args) throws IOException {
        boolean reportOnly = args.length > 0 && args[0].equals("--report");
        Path root = Path.of(".");
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/main/java/"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .sorted()
                    .toList();
        }
        List<Method> methods = new ArrayList<>();
        Map<Path, Integer> big = new TreeMap<>();
        Map<Path, Integer> sizes = new HashMap<>();
        Map<String, Set<String>> graph = new TreeMap<>();
        Map<String, Set<String>> modulesByName = new TreeMap<>();
        List<Path> bindings = new ArrayList<>();
        for (Path f : files) {
            List<String> lines = Files.readAllLines(f);
            sizes.put(f, lines.size());
            if (lines.size() > MAX_CLASS) {
                big.put(f, lines.size());
            }
            methods.addAll(methods(f, lines));
            String text = String.join("\n", lines);
            Matcher pm = PKG.matcher(text);
            String pkg = pm.find() ? pm.group(1) : "";
            Set<String> deps = graph.computeIfAbsent(pkg, k -> new TreeSet<>());
            Matcher rm = REF.matcher(text);
            while (rm.find()) {
                if (!rm.group(1).equals(pkg)) {
                    deps.add(rm.group(1));
                }
            }
            // fairway-testkit is test support: its binding of what only tests call is not counted.
            if ((text.contains("Native.register(") || text.contains("Native.load("))
                    && !f.subpath(1, 2).toString().equals("fairway-testkit")) {
                bindings.add(f);
            }
            String name = f.getFileName().toString().replace(".java", "");
            if (!name.equals("package-info")) {
                modulesByName.computeIfAbsent(name, k -> new TreeSet<>()).add(f.subpath(1, 2).toString());
            }
        }
        methods.sort((a, b) -> b.length() - a.length());
        System.out.println("Longest main methods (lines):");
        methods.stream().limit(10).forEach(m ->
                System.out.printf("  %4d  %s:%d %s%n", m.length(), m.file(), m.line(), m.name()));
        perModule(methods, sizes);
        System.out.println("Main classes over " + MAX_CLASS + " lines: " + big.size());
        big.forEach((f, n) -> System.out.printf("  %4d  %s%n", n, f));
        List<List<String>> cycles = Tarjan.cycles(graph);
        System.out.println("Package cycles: " + cycles.size());
        cycles.forEach(c -> System.out.println("  " + String.join(" <-> ", c)));
        List<String> clashes = new ArrayList<>();
        modulesByName.forEach((n, mods) -> {
            if (mods.size() > 1) {
                clashes.add(n + " " + mods);
            }
        });
        System.out.println("Simple class names in more than one module: " + clashes.size());
        clashes.forEach(c -> System.out.println("  " + c));
        System.out.println("Files binding a native library through JNA: " + bindings.size());
        bindings.forEach(f -> System.out.println("  " + f));
        int longest = methods.isEmpty() ? 0 : methods.get(0).length();
        boolean ok = longest <= MAX_METHOD && big.isEmpty() && cycles.isEmpty() && clashes.isEmpty()
                && bindings.size() <= 1;
        System.out.println(ok ? "shape: OK" : "shape: goals missed (longest method <= " + MAX_METHOD
                + ", no class over " + MAX_CLASS + ", no cycle, no clash, one libc binding)");
        System.exit(ok || reportOnly ? 0 : 1);
    }

    /** Each module's longest main method and its largest main classes (source files). */
    static void perModule(List<Method> methods, Map<Path, Integer> sizes) {
        Map<String, Method> longest = new TreeMap<>();
        for (Method m : methods) {
            longest.putIfAbsent(module(m.file()), m);
        }
        Map<String, List<Map.Entry<Path, Integer>>> classes = new TreeMap<>();
        sizes.entrySet().stream()
                .sorted((a, b) -> b.getValue() - a.getValue())
                .forEach(e -> classes.computeIfAbsent(module(e.getKey()), k -> new ArrayList<>()).add(e));
        System.out.println("Per module: longest main method; largest main classes (lines):");
        classes.forEach((mod, list) -> {
            Method m = longest.get(mod);
            System.out.printf("  %-18s %4d %s%n", mod, m == null ? 0 : m.length(),
                    m == null ? "-" : m.file().getFileName() + ":" + m.line() + " " + m.name());
            StringBuilder top = new StringBuilder();
            list.stream().limit(TOP_CLASSES).forEach(e -> top.append(String.format(
                    "  %d %s", e.getValue(), e.getKey().getFileName().toString().replace(".java", ""))));
            System.out.println("  " + " ".repeat(18) + top);
        });
    }

    static String module(Path f) {
        return f.subpath(1, 2).toString();
    }

    static List<Method> methods(Path f, List<String> lines) {
        List<Method> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String trimmed = lines.get(i).trim();
            if (trimmed.startsWith("*") || trimmed.startsWith("//")) {
                continue;
            }
            // A declaration too long for one line goes on over the next ones (the formatter breaks
            // after an opening parenthesis or a comma); read it up to the line that opens its body.
            int open = i;
            StringBuilder decl = new StringBuilder(lines.get(i));
            while ((endsWith(decl, '(') || endsWith(decl, ','))
                    && open + 1 < lines.size()
                    && open - i < MAX_SIGNATURE_LINES) {
                decl.append(' ').append(lines.get(++open).trim());
            }
            Matcher m = METHOD.matcher(decl);
            if (!m.matches()) {
                continue;
            }
            int end = close(lines, open);
            if (end > open) {
                out.add(new Method(f, m.group(1), i + 1, end - i + 1));
            }
        }
        return out;
    }

    static boolean endsWith(CharSequence s, char c) {
        int n = s.length();
        while (n > 0 && Character.isWhitespace(s.charAt(n - 1))) {
            n--;
        }
        return n > 0 && s.charAt(n - 1) == c;
    }

    /** The line of the brace closing the one that ends line {@code start}. */
    static int close(List<String> lines, int start) {
        int depth = 0;
        boolean block = false;
        for (int i = start; i < lines.size(); i++) {
            String l = lines.get(i);
            boolean str = false;
            char quote = 0;
            for (int j = 0; j < l.length(); j++) {
                char c = l.charAt(j);
                if (block) {
                    if (c == '*' && j + 1 < l.length() && l.charAt(j + 1) == '/') {
                        block = false;
                        j++;
                    }
                } else if (str) {
                    if (c == '\\') {
                        j++;
                    } else if (c == quote) {
                        str = false;
                    }
                } else if (c == '"' || c == '\'') {
                    str = true;
                    quote = c;
                } else if (c == '/' && j + 1 < l.length() && l.charAt(j + 1) == '/') {
                    break;
                } else if (c == '/' && j + 1 < l.length() && l.charAt(j + 1) == '*') {
                    block = true;
                    j++;
                } else if (c == '{') {
                    depth++;
                } else if (c == '}' && --depth == 0) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** Strongly connected components with more than one package. */
    static final class Tarjan {
        final Map<String, Set<String>> g;
        final Map<String, Integer> index = new HashMap<>();
        final Map<String, Integer> low = new HashMap<>();
        final List<String> stack = new ArrayList<>();
        final Set<String> on = new TreeSet<>();
        final List<List<String>> out = new ArrayList<>();
        int next;

        Tarjan(Map<String, Set<String>> g) {
            this.g = g;
        }

        static List<List<String>> cycles(Map<String, Set<String>> g) {
            Tarjan t = new Tarjan(g);
            for (String v : g.keySet()) {
                if (!t.index.containsKey(v)) {
                    t.visit(v);
                }
            }
            return t.out;
        }

        void visit(String v) {
            index.put(v, next);
            low.put(v, next++);
            stack.add(v);
            on.add(v);
            for (String w : g.getOrDefault(v, Set.of())) {
                if (!g.containsKey(w)) {
                    continue;
                }
                if (!index.containsKey(w)) {
                    visit(w);
                    low.put(v, Math.min(low.get(v), low.get(w)));
                } else if (on.contains(w)) {
                    low.put(v, Math.min(low.get(v), index.get(w)));
                }
            }
            if (low.get(v).equals(index.get(v))) {
                List<String> c = new ArrayList<>();
                String w;
                do {
                    w = stack.remove(stack.size() - 1);
                    on.remove(w);
                    c.add(w);
                } while (!w.equals(v));
                if (c.size() > 1) {
                    c.sort(null);
                    out.add(c);
                }
            }
        }
    }
}

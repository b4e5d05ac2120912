package io.fairway.dist;

import io.fairway.cli.CompletionCommand;
import io.fairway.cli.Main;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.asciidoctor.Asciidoctor;
import org.asciidoctor.Attributes;
import org.asciidoctor.Options;
import org.asciidoctor.SafeMode;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * Build-time generator of what the Debian package ships besides the jar: one man page per command
 * of the live command tree (picocli's {@link ManPageGenerator} writes AsciiDoc, Asciidoctor's
 * manpage backend turns it into troff), the bash completion script, and the Debian changelog with
 * the build's version. Everything is read from {@link Main#commandTree()}, so a subcommand added on
 * any branch gets its page and its completion without a change here.
 *
 * <p>Compressed files are written the way Debian policy and lintian want them: {@code gzip -9n},
 * that is, best compression and no name or timestamp in the header, so two builds are identical.
 *
 * <p>Usage: {@code GenerateDocs OUTPUT_DIR CHANGELOG_TEMPLATE DEB_VERSION}. Writes {@code
 * OUTPUT_DIR/man/*.1.gz}, {@code OUTPUT_DIR/bash-completion/fairway} and {@code
 * OUTPUT_DIR/doc/changelog.gz}.
 */
public final class GenerateDocs {
  private GenerateDocs() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 3) {
      System.err.println("usage: GenerateDocs OUTPUT_DIR CHANGELOG_TEMPLATE DEB_VERSION");
      System.exit(2);
    }
    Path out = Path.of(args[0]);
    List<Path> pages = manPages(out.resolve("adoc"), out.resolve("man"), args[2]);
    Path completion = out.resolve("bash-completion").resolve("fairway");
    Files.createDirectories(completion.getParent());
    // bash-completion sources the file: no "#!" line (lintian: bash-completion-with-hashbang).
    Files.writeString(
        completion,
        CompletionCommand.script().replaceFirst("\\A#!.*\n", ""),
        StandardCharsets.UTF_8);
    String changelog =
        Files.readString(Path.of(args[1]), StandardCharsets.UTF_8).replace("@VERSION@", args[2]);
    Path doc = Files.createDirectories(out.resolve("doc"));
    gzip(changelog.getBytes(StandardCharsets.UTF_8), doc.resolve("changelog.gz"));
    System.out.println(
        "GenerateDocs: "
            + pages.size()
            + " man pages, bash completion, changelog "
            + args[2]
            + " in "
            + out);
  }

  /** One gzipped troff page per command; returns the pages written. */
  static List<Path> manPages(Path adocDir, Path manDir, String version) throws IOException {
    Files.createDirectories(adocDir);
    Files.createDirectories(manDir);
    int rc =
        ManPageGenerator.generateManPage(
            adocDir.toFile(), null, new boolean[0], true, Main.commandTree().getCommandSpec());
    if (rc != 0) {
      throw new IOException("picocli's ManPageGenerator failed with exit code " + rc);
    }
    List<Path> adocs;
    try (Stream<Path> s = Files.list(adocDir)) {
      adocs = s.filter(p -> p.toString().endsWith(".adoc")).sorted().toList();
    }
    List<Path> pages = new ArrayList<>();
    try (Asciidoctor asciidoctor = Asciidoctor.Factory.create()) {
      for (Path adoc : adocs) {
        String name = adoc.getFileName().toString().replaceFirst("\\.adoc$", "");
        Path troff = manDir.resolve(name + ".1");
        asciidoctor.convertFile(
            adoc.toFile(),
            Options.builder()
                .backend("manpage")
                .safe(SafeMode.UNSAFE)
                .toFile(troff.toFile())
                .attributes(
                    Attributes.builder()
                        .attribute("mansource", "Fairway " + version)
                        .attribute("manmanual", "Fairway Manual")
                        .build())
                .build());
        Path gz = manDir.resolve(name + ".1.gz");
        gzip(Files.readAllBytes(troff), gz);
        Files.delete(troff);
        pages.add(gz);
      }
    }
    return pages;
  }

  /**
   * {@code gzip -9n}: best compression, no file name and a zero timestamp in the header. The JDK
   * writes its header with XFL 0 and OS 0 whatever the level; gzip writes XFL 2 ("maximum
   * compression", which lintian checks) and OS 3 (Unix), so those two bytes are set to match.
   */
  static void gzip(byte[] content, Path target) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (GZIPOutputStream gz =
        new GZIPOutputStream(bytes) {
          {
            def.setLevel(java.util.zip.Deflater.BEST_COMPRESSION);
          }
        }) {
      gz.write(content);
    }
    byte[] gz = bytes.toByteArray();
    gz[8] = 2; // XFL: maximum compression
    gz[9] = 3; // OS: Unix
    try (OutputStream file = Files.newOutputStream(target)) {
      file.write(gz);
    }
  }
}

package io.fairway.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.ExternalPrograms;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The package this build made, and the Debian tools the tests inspect it with. */
final class Deb {
  private Deb() {}

  /** The .deb (failsafe passes its path; the package phase built it). */
  static Path file() {
    String p = System.getProperty("fairway.deb");
    assertThat(p).as("system property fairway.deb (set by the failsafe configuration)").isNotNull();
    Path deb = Path.of(p);
    assertThat(deb).as("the package built in the package phase").isRegularFile();
    return deb;
  }

  /**
   * Skips the test when {@code program} is not installed, except under {@code CI=true}, where a
   * missing program fails it: CI installs every one of them.
   */
  static void require(String program) {
    boolean found = false;
    for (String dir :
        System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
      found |= Files.isExecutable(Path.of(dir, program));
    }
    boolean present = found;
    ExternalPrograms.requireThat(present, () -> program + " is not installed");
  }

  /** A finished program: exit code and what it printed (stdout and stderr together). */
  record Run(int code, String output) {}

  static Run run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish in 5 minutes: " + out);
    }
    return new Run(p.exitValue(), out);
  }

  static Run run(String... command) throws IOException, InterruptedException {
    return run(List.of(command));
  }

  /**
   * {@code dpkg-deb -x}: the package unpacked into {@code root}, as {@code dpkg -i} would lay it
   * out.
   */
  static Path unpack(Path root) throws IOException, InterruptedException {
    require("dpkg-deb");
    Run r = run("dpkg-deb", "-x", file().toString(), root.toString());
    assertThat(r.code()).as(r.output()).isZero();
    return root;
  }

  /**
   * Runs {@code script} (sh, {@code set -eu}; {@code $R} is the root, {@code $1}... the {@code
   * args}) as root in a private mount namespace ({@code unshare -m}) where {@code root} is a
   * throwaway Debian system made of this host's: {@code /usr}, {@code /etc} and {@code
   * /var/lib/dpkg} are overlays on the host's, so the host's Java runtime and dpkg database are
   * there (dpkg checks the package's Depends for real) while every write lands in {@code layers};
   * the merged-/usr links, {@code /proc}, {@code /dev}, and empty {@code /tmp} and {@code /run}.
   * The host's files are never written, and the mounts go with the namespace; what dpkg wrote stays
   * in {@code layers} and {@code root} for the next call.
   *
   * <p>Why not {@code dpkg --root} on an empty directory, or {@code debootstrap}: dpkg runs the
   * maintainer scripts chrooted into the root, and postinst needs a shell and a Java runtime there;
   * debootstrap would download a system from the network. The overlays give both, with nothing
   * downloaded, in milliseconds.
   */
  static Run inThrowawayRoot(Path root, Path layers, String script, String... args)
      throws IOException, InterruptedException {
    ExternalPrograms.requireThat(
        "root".equals(System.getProperty("user.name")),
        () -> "the throwaway root needs root (mount namespaces, overlays, chroot)");
    for (String p : List.of("unshare", "chroot", "dpkg", "mount")) {
      require(p);
    }
    String setup =
        String.join(
            "\n",
            "set -eu",
            "R=\"$0\"; L=\"$_layers\"",
            "overlay() { n=$(echo \"$1\" | tr / _); mkdir -p \"$R/$1\" \"$L/$n.upper\" \"$L/$n.work\";"
                + " mount -t overlay overlay -o \"lowerdir=/$1,upperdir=$L/$n.upper,workdir=$L/$n.work\" \"$R/$1\"; }",
            "overlay usr; overlay etc; overlay var/lib/dpkg",
            "for l in bin sbin lib lib32 lib64 libx32; do",
            "  if [ -L \"/$l\" ]; then [ -L \"$R/$l\" ] || ln -s \"$(readlink \"/$l\")\" \"$R/$l\";",
            "  elif [ -d \"/$l\" ]; then overlay \"$l\"; fi",
            "done",
            "mkdir -p \"$R/proc\" \"$R/dev\" \"$R/tmp\" \"$R/run\" \"$R/var/cache\" \"$R/var/log\" \"$R/root\"",
            "mount -t proc proc \"$R/proc\"",
            "mount --rbind /dev \"$R/dev\"",
            "mount -t tmpfs tmpfs \"$R/tmp\"",
            "mount -t tmpfs tmpfs \"$R/run\"",
            "unset _layers",
            "");
    List<String> command =
        new ArrayList<>(
            List.of(
                "unshare",
                "-m",
                "--propagation",
                "private",
                "sh",
                "-c",
                setup + script,
                root.toAbsolutePath().toString()));
    command.addAll(List.of(args));
    Files.createDirectories(root);
    Files.createDirectories(layers);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("_layers", layers.toAbsolutePath().toString());
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish in 5 minutes: " + out);
    }
    return new Run(p.exitValue(), out);
  }

  static List<String> contents() throws IOException, InterruptedException {
    require("dpkg-deb");
    Run r = run("dpkg-deb", "--fsys-tarfile", file().toString());
    assertThat(r.code()).isZero();
    Run list = run("sh", "-c", "dpkg-deb --fsys-tarfile \"$1\" | tar -t", "sh", file().toString());
    assertThat(list.code()).as(list.output()).isZero();
    List<String> paths = new ArrayList<>();
    list.output().lines().map(l -> l.replaceFirst("^\\./", "/")).forEach(paths::add);
    return paths;
  }
}

package io.fairway.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Self-signed test certificates made by the openssl CLI at test time, so no key is ever checked in
 * and each kind of key file openssl writes is what the tests read.
 */
public final class TestCerts {
  private TestCerts() {}

  /** A certificate file and its key file. */
  public record Pair(Path cert, Path key) {}

  /** Key types and the PEM form of the key file. */
  public enum Kind {
    /** RSA 2048, PKCS#8 ({@code BEGIN PRIVATE KEY}). */
    RSA_PKCS8,
    /** RSA 2048, PKCS#1 ({@code BEGIN RSA PRIVATE KEY}). */
    RSA_PKCS1,
    /** EC P-256, PKCS#8. */
    EC_PKCS8,
    /** EC P-256, SEC1 ({@code BEGIN EC PRIVATE KEY}). */
    EC_SEC1
  }

  /**
   * A self-signed certificate for {@code cn} with these DNS names (wildcards allowed), valid for a
   * day, in {@code dir} under {@code name}.crt/.key.
   */
  public static Pair make(Path dir, String name, Kind kind, String cn, String... dnsNames)
      throws IOException, InterruptedException {
    ExternalPrograms.require("openssl", "/usr/bin/openssl");
    Path cert = dir.resolve(name + ".crt");
    Path key = dir.resolve(name + ".key");
    Path raw = dir.resolve(name + ".raw.key");
    boolean rsa = kind == Kind.RSA_PKCS8 || kind == Kind.RSA_PKCS1;
    if (rsa) {
      run("openssl", "genrsa", "-out", raw.toString(), "2048");
    } else {
      run("openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", raw.toString());
    }
    switch (kind) {
      case RSA_PKCS8, EC_PKCS8 ->
          run(
              "openssl",
              "pkcs8",
              "-topk8",
              "-nocrypt",
              "-in",
              raw.toString(),
              "-out",
              key.toString());
      case RSA_PKCS1 ->
          run("openssl", "rsa", "-traditional", "-in", raw.toString(), "-out", key.toString());
      case EC_SEC1 -> run("openssl", "ec", "-in", raw.toString(), "-out", key.toString());
    }
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "openssl",
                "req",
                "-x509",
                "-new",
                "-key",
                key.toString(),
                "-out",
                cert.toString(),
                "-days",
                "1",
                "-subj",
                "/CN=" + cn));
    if (dnsNames.length > 0) {
      cmd.add("-addext");
      cmd.add("subjectAltName=DNS:" + String.join(",DNS:", dnsNames));
    }
    run(cmd.toArray(String[]::new));
    Files.delete(raw);
    return new Pair(cert, key);
  }

  private static void run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
  }
}

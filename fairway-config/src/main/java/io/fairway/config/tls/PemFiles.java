package io.fairway.config.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Loads a certificate chain and its private key from PEM files and checks that they can serve:
 * readable, parseable, the leaf certificate valid now, and the key the certificate's.
 *
 * <p>Keys may be PKCS#8 ({@code BEGIN PRIVATE KEY}) or traditional ({@code BEGIN RSA PRIVATE KEY},
 * PKCS#1; {@code BEGIN EC PRIVATE KEY}, SEC1), as openssl and certbot write them; the JDK reads
 * only the first, Bouncy Castle's PEM parser all three. Encrypted keys are refused: a daemon that
 * reloads unattended has no one to ask for a passphrase.
 */
public final class PemFiles {
  /** Larger than any certificate chain or key; bounds what a wrong path costs to read. */
  static final int MAX_BYTES = 1 << 20;

  private PemFiles() {}

  /** A certificate chain (leaf first) and its private key, checked to belong together. */
  public record KeyPair(List<X509Certificate> chain, PrivateKey key) {
    public KeyPair {
      chain = List.copyOf(chain);
    }

    public X509Certificate leaf() {
      return chain.get(0);
    }
  }

  /** Why a file cannot serve: one line, naming the file. */
  public static final class PemException extends Exception {
    private static final long serialVersionUID = 1L;

    public PemException(String message) {
      super(message);
    }
  }

  /**
   * Loads and checks a certificate and its key.
   *
   * @param now the certificate must be valid at this instant
   */
  public static KeyPair load(Path chainFile, Path keyFile, Instant now) throws PemException {
    List<X509Certificate> chain = certificates(chainFile);
    PrivateKey key = privateKey(keyFile);
    X509Certificate leaf = chain.get(0);
    if (leaf.getNotAfter().toInstant().isBefore(now)) {
      throw new PemException(
          chainFile + ": the certificate expired on " + leaf.getNotAfter().toInstant());
    }
    if (leaf.getNotBefore().toInstant().isAfter(now)) {
      throw new PemException(
          chainFile + ": the certificate is not valid before " + leaf.getNotBefore().toInstant());
    }
    if (!matches(leaf, key)) {
      throw new PemException(
          keyFile + ": this key is not the key of the certificate in " + chainFile);
    }
    return new KeyPair(chain, key);
  }

  /** The certificates of a PEM file, in file order; at least one. */
  public static List<X509Certificate> certificates(Path file) throws PemException {
    byte[] bytes = read(file);
    Collection<? extends java.security.cert.Certificate> all;
    try (InputStream in = new ByteArrayInputStream(bytes)) {
      all = CertificateFactory.getInstance("X.509").generateCertificates(in);
    } catch (CertificateException | IOException e) {
      throw new PemException(file + ": not a PEM certificate (" + e.getMessage() + ")");
    }
    List<X509Certificate> out = new ArrayList<>();
    for (java.security.cert.Certificate c : all) {
      if (c instanceof X509Certificate x) {
        out.add(x);
      }
    }
    if (out.isEmpty()) {
      throw new PemException(file + ": no certificate in it");
    }
    return out;
  }

  /** The private key of a PEM file: the first key in it. */
  public static PrivateKey privateKey(Path file) throws PemException {
    String text = new String(read(file), StandardCharsets.US_ASCII);
    try (PEMParser p = new PEMParser(new StringReader(text))) {
      JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
      for (Object o = p.readObject(); o != null; o = p.readObject()) {
        if (o instanceof PrivateKeyInfo info) {
          return conv.getPrivateKey(info);
        }
        if (o instanceof PEMKeyPair pair) {
          return conv.getKeyPair(pair).getPrivate();
        }
        if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
          throw new PemException(file + ": the key is encrypted; give it unencrypted (mode 0600)");
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new PemException(file + ": not a PEM private key (" + e.getMessage() + ")");
    }
    throw new PemException(file + ": no private key in it");
  }

  /** The file's contents, at most {@link #MAX_BYTES}. */
  public static byte[] read(Path file) throws PemException {
    try {
      if (Files.isDirectory(file)) {
        throw new PemException(file + ": is a directory");
      }
      long size = Files.size(file);
      if (size > MAX_BYTES) {
        throw new PemException(file + ": " + size + " bytes, more than " + MAX_BYTES);
      }
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new PemException(file + ": no such file");
    } catch (java.nio.file.AccessDeniedException e) {
      throw new PemException(file + ": cannot read it (permission denied)");
    } catch (IOException | SecurityException e) {
      throw new PemException(file + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  /** A SHA-256 of the files' contents, in order (a changed file is a changed digest). */
  public static String digest(byte[]... contents) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (byte[] c : contents) {
        md.update(c);
        md.update((byte) 0);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is in every JDK", e);
    }
  }

  /**
   * Whether the key is the certificate's: it signs a message the certificate's public key verifies.
   * Works the same for RSA, EC and EdDSA keys without comparing their parameters.
   */
  static boolean matches(X509Certificate cert, PrivateKey key) {
    String alg =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
          case "DSA" -> "SHA256withDSA";
          default -> null;
        };
    if (alg == null) {
      return false;
    }
    try {
      byte[] msg = "fairway".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(alg);
      s.initSign(key);
      s.update(msg);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance(alg);
      v.initVerify(cert.getPublicKey());
      v.update(msg);
      return v.verify(sig);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}

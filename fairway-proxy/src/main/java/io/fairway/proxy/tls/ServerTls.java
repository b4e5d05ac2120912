package io.fairway.proxy.tls;

import io.fairway.config.model.TlsSettings;
import io.fairway.config.tls.PemFiles;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.OpenSslSessionTicketKey;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.DomainWildcardMappingBuilder;
import io.netty.util.Mapping;
import io.netty.util.ReferenceCountUtil;
import java.nio.file.Path;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * The TLS contexts of one listener's {@code tls} settings: one per certificate, the first the
 * default, the others chosen by SNI against their DNS names (wildcards included). Immutable once
 * built; a reload builds a new one.
 */
public final class ServerTls {
  /** Forces the JDK's provider even where BoringSSL loads (tests run both). */
  public static final String FORCE_JDK = "fairway.tls.jdk";

  /**
   * How long a client has for its ClientHello, and then for the rest of its handshake, where the
   * {@code tls} block has no {@code handshake_timeout}.
   */
  public static final long HANDSHAKE_TIMEOUT_MILLIS =
      Long.getLong("fairway.tls.handshakeTimeoutMillis", 10_000);

  /** ClientHellos above this are refused (bounds what a hostile client makes us buffer). */
  static final int MAX_CLIENT_HELLO = 16 * 1024;

  private final List<SslContext> contexts;
  private final Mapping<String, SslContext> mapping;
  private final SslProvider provider;
  private final long handshakeMillis;

  private ServerTls(
      List<SslContext> contexts,
      Mapping<String, SslContext> mapping,
      SslProvider p,
      long handshakeMillis) {
    this.contexts = List.copyOf(contexts);
    this.mapping = mapping;
    this.provider = p;
    this.handshakeMillis = handshakeMillis;
  }

  /** BoringSSL where netty-tcnative loads and the JDK is not forced, else the JDK's. */
  public static SslProvider provider() {
    return !Boolean.getBoolean(FORCE_JDK) && OpenSsl.isAvailable()
        ? SslProvider.OPENSSL
        : SslProvider.JDK;
  }

  public SslProvider usedProvider() {
    return provider;
  }

  /**
   * Reads the files and builds the contexts.
   *
   * @param http whether the listener speaks HTTP: ALPN offers {@code h2 http/1.1} there unless
   *     {@code alpn} says otherwise; L4 offers only what {@code alpn} names, as the backend decides
   * @throws TlsException naming the configuration line of what cannot serve
   */
  public static ServerTls build(TlsSettings s, boolean http) throws TlsException {
    SslProvider p = provider();
    List<SslContext> built = new ArrayList<>();
    try {
      List<List<String>> dns = new ArrayList<>();
      for (TlsSettings.Certificate c : s.certificates()) {
        PemFiles.KeyPair kp = load(c);
        built.add(context(s, kp, p, http));
        dns.add(dnsNames(kp.leaf()));
      }
      DomainWildcardMappingBuilder<SslContext> names =
          new DomainWildcardMappingBuilder<>(built.get(0));
      // Added last to first, so that a name two certificates share goes to the earlier one.
      for (int i = built.size() - 1; i >= 0; i--) {
        for (String n : dns.get(i)) {
          names.add(n, built.get(i));
        }
      }
      long handshake =
          s.handshakeTimeout().map(java.time.Duration::toMillis).orElse(HANDSHAKE_TIMEOUT_MILLIS);
      return new ServerTls(built, names.build(), p, Math.max(1, handshake));
    } catch (TlsException | RuntimeException e) {
      built.forEach(ReferenceCountUtil::release);
      throw e instanceof TlsException t ? t : new TlsException(e.getMessage());
    }
  }

  private static PemFiles.KeyPair load(TlsSettings.Certificate c) throws TlsException {
    try {
      return PemFiles.load(Path.of(c.chain()), Path.of(c.key()), Instant.now());
    } catch (PemFiles.PemException e) {
      throw new TlsException(c.location() + ": certificate: " + e.getMessage());
    }
  }

  private static SslContext context(TlsSettings s, PemFiles.KeyPair kp, SslProvider p, boolean http)
      throws TlsException {
    List<String> alpn = alpn(s, http);
    try {
      SslContextBuilder b =
          SslContextBuilder.forServer(kp.key(), kp.chain().toArray(X509Certificate[]::new))
              .sslProvider(p)
              .protocols(s.protocols());
      if (!alpn.isEmpty()) {
        b.applicationProtocolConfig(
            new ApplicationProtocolConfig(
                ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                alpn));
      }
      SslContext ctx = b.build();
      if (ctx.sessionContext() instanceof OpenSslSessionContext o) {
        // Without keys of ours each context seals tickets with keys of its own, and a reload,
        // which builds new contexts, would make every ticket issued before it useless.
        o.setTicketKeys(
            s.ticketKeys().isPresent() ? ticketKeys(s.ticketKeys().get()) : ProcessTicketKeys.KEYS);
      }
      return ctx;
    } catch (SSLException | IllegalArgumentException e) {
      throw new TlsException(s.certificates().get(0).location() + ": tls: " + e.getMessage());
    }
  }

  /** What ALPN offers: on HTTP, what {@code alpn} names ({@code h2 http/1.1} by default). */
  static List<String> alpn(TlsSettings s, boolean http) {
    if (!http) {
      return s.alpn();
    }
    return s.alpn().isEmpty() ? TlsSettings.DEFAULT_ALPN : s.alpn();
  }

  private static OpenSslSessionTicketKey[] ticketKeys(TlsSettings.TicketKeys t)
      throws TlsException {
    byte[] all;
    try {
      all = PemFiles.read(Path.of(t.file()));
    } catch (PemFiles.PemException e) {
      throw new TlsException(t.location() + ": ticket_keys: " + e.getMessage());
    }
    int n = all.length / OpenSslSessionTicketKey.TICKET_KEY_SIZE;
    if (n == 0 || all.length % OpenSslSessionTicketKey.TICKET_KEY_SIZE != 0) {
      throw new TlsException(t.location() + ": ticket_keys: " + t.file() + ": not 48-byte keys");
    }
    OpenSslSessionTicketKey[] keys = new OpenSslSessionTicketKey[n];
    for (int i = 0; i < n; i++) {
      int o = i * 48;
      keys[i] =
          new OpenSslSessionTicketKey(
              Arrays.copyOfRange(all, o, o + 16),
              Arrays.copyOfRange(all, o + 16, o + 32),
              Arrays.copyOfRange(all, o + 32, o + 48));
    }
    return keys;
  }

  /**
   * The ticket keys of a {@code tls} block without {@code ticket_keys}: random, made once per
   * process and shared by every context, as {@code ticket_keys} would be, so a ticket still resumes
   * after a reload rebuilt the contexts. Held in memory only; a restart makes new ones, as nginx
   * does without {@code ssl_session_ticket_key}.
   */
  private static final class ProcessTicketKeys {
    static final OpenSslSessionTicketKey[] KEYS = {random()};

    private static OpenSslSessionTicketKey random() {
      java.security.SecureRandom r = new java.security.SecureRandom();
      byte[] name = new byte[OpenSslSessionTicketKey.NAME_SIZE];
      byte[] hmac = new byte[OpenSslSessionTicketKey.HMAC_KEY_SIZE];
      byte[] aes = new byte[OpenSslSessionTicketKey.AES_KEY_SIZE];
      r.nextBytes(name);
      r.nextBytes(hmac);
      r.nextBytes(aes);
      return new OpenSslSessionTicketKey(name, hmac, aes);
    }
  }

  /** The DNS names a certificate serves: its subjectAltName DNS entries. */
  static List<String> dnsNames(X509Certificate c) {
    Set<String> out = new LinkedHashSet<>();
    try {
      if (c.getSubjectAlternativeNames() != null) {
        for (List<?> san : c.getSubjectAlternativeNames()) {
          if (Integer.valueOf(2).equals(san.get(0))) {
            out.add(((String) san.get(1)).toLowerCase(java.util.Locale.ROOT));
          }
        }
      }
    } catch (CertificateParsingException e) {
      return List.of();
    }
    return List.copyOf(out);
  }

  /** The first handler of a new connection: reads the SNI, then becomes the SslHandler. */
  public ChannelHandler newHandler() {
    long timeout = handshakeMillis;
    return new SniHandler(mapping, MAX_CLIENT_HELLO, timeout) {
      @Override
      protected io.netty.handler.ssl.SslHandler newSslHandler(
          SslContext context, io.netty.buffer.ByteBufAllocator allocator) {
        io.netty.handler.ssl.SslHandler h = super.newSslHandler(context, allocator);
        h.setHandshakeTimeoutMillis(timeout);
        return h;
      }
    };
  }

  /**
   * Lets go of the contexts; connections still using one keep it (each engine holds a reference to
   * its OpenSSL context).
   */
  public void release() {
    contexts.forEach(ReferenceCountUtil::release);
  }

  /** Why settings cannot serve: one line starting with the configuration's FILE:LINE. */
  public static final class TlsException extends Exception {
    private static final long serialVersionUID = 1L;

    public TlsException(@Nullable String message) {
      super(message);
    }
  }
}

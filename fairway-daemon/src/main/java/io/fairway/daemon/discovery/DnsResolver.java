package io.fairway.daemon.discovery;

import io.fairway.config.model.DnsDiscovery;
import io.netty.buffer.ByteBuf;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRecordDecoder;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.SequentialDnsServerAddressStreamProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Asks a block's name servers (else those of {@code /etc/resolv.conf}) for its records on one event
 * loop of its own, never one that carries traffic. A truncated answer is asked again over TCP by
 * netty's resolver. The answer's code is read, not guessed from an exception: NXDOMAIN and an empty
 * answer are "gone" (kept for {@code hold}), anything else that is not an answer is a failure (kept
 * forever).
 */
public final class DnsResolver implements AutoCloseable {
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Duration timeout;

  /**
   * @param timeout how long one query may take (per name server)
   */
  public DnsResolver(Duration timeout) {
    this.timeout = timeout;
  }

  /** Resolves the block once; never completes exceptionally. */
  public CompletableFuture<Answer> resolve(DnsDiscovery block) {
    CompletableFuture<Answer> out = new CompletableFuture<>();
    DnsNameResolver r = resolver(block);
    DnsRecordType type =
        switch (block.type()) {
          case SRV -> DnsRecordType.SRV;
          case A -> DnsRecordType.A;
          case AAAA -> DnsRecordType.AAAA;
        };
    r.query(new DefaultDnsQuestion(block.name() + ".", type))
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                out.complete(Answer.failed(oneLine(f.cause())));
                r.close();
                return;
              }
              @SuppressWarnings("unchecked")
              AddressedEnvelope<DnsResponse, InetSocketAddress> env =
                  (AddressedEnvelope<DnsResponse, InetSocketAddress>) f.getNow();
              try {
                Records recs = read(env.content(), type);
                if (recs.answer != null) {
                  out.complete(recs.answer);
                  r.close();
                } else {
                  addresses(r, recs, out);
                }
              } catch (RuntimeException e) {
                out.complete(Answer.failed("unreadable answer: " + oneLine(e)));
                r.close();
              } finally {
                env.release();
              }
            });
    return out;
  }

  private DnsNameResolver resolver(DnsDiscovery block) {
    DnsServerAddressStreamProvider servers;
    if (block.nameservers().isEmpty()) {
      servers = DnsServerAddressStreamProviders.platformDefault();
    } else {
      List<InetSocketAddress> list =
          block.nameservers().stream()
              .map(ns -> new InetSocketAddress(ns.address(), ns.port()))
              .toList();
      servers =
          new SequentialDnsServerAddressStreamProvider(list.toArray(new InetSocketAddress[0]));
    }
    return new DnsNameResolverBuilder(group.next())
        .datagramChannelType(NioDatagramChannel.class)
        .socketChannelType(NioSocketChannel.class)
        .nameServerProvider(servers)
        .queryTimeoutMillis(timeout.toMillis())
        .recursionDesired(true)
        .maxQueriesPerResolve(8)
        .build();
  }

  /** The records of an answer: SRV targets still to be resolved, or the answer itself. */
  private static final class Records {
    @Nullable Answer answer;
    final List<int[]> srv = new ArrayList<>(); // priority, weight, port
    final List<String> targets = new ArrayList<>();
    long ttl = Long.MAX_VALUE;
  }

  private static Records read(DnsResponse resp, DnsRecordType type) {
    Records out = new Records();
    if (resp.code().equals(DnsResponseCode.NXDOMAIN)) {
      out.answer = Answer.gone("NXDOMAIN");
      return out;
    }
    if (!resp.code().equals(DnsResponseCode.NOERROR)) {
      out.answer = Answer.failed(resp.code().toString());
      return out;
    }
    List<Answer.Member> members = new ArrayList<>();
    int n = resp.count(DnsSection.ANSWER);
    for (int i = 0; i < n; i++) {
      DnsRecord rec = resp.recordAt(DnsSection.ANSWER, i);
      if (!rec.type().equals(type) || !(rec instanceof DnsRawRecord raw)) {
        continue; // a CNAME on the way
      }
      out.ttl = Math.min(out.ttl, rec.timeToLive());
      ByteBuf c = raw.content().duplicate();
      if (type.equals(DnsRecordType.SRV)) {
        int priority = c.readUnsignedShort();
        int weight = c.readUnsignedShort();
        int port = c.readUnsignedShort();
        String target = DefaultDnsRecordDecoder.decodeName(c);
        out.srv.add(new int[] {priority, weight, port});
        out.targets.add(target.endsWith(".") ? target.substring(0, target.length() - 1) : target);
      } else {
        byte[] b = new byte[c.readableBytes()];
        c.readBytes(b);
        try {
          InetAddress a = InetAddress.getByAddress(b);
          members.add(new Answer.Member(a.getHostAddress(), a, 0, 0));
        } catch (UnknownHostException e) {
          // a record of the wrong length: not an address
        }
      }
    }
    Duration ttl = Duration.ofSeconds(out.ttl == Long.MAX_VALUE ? 0 : out.ttl);
    if (!type.equals(DnsRecordType.SRV)) {
      out.answer =
          members.isEmpty()
              ? Answer.gone("no " + type.name() + " record")
              : new Answer(Answer.Outcome.FOUND, members, ttl, "");
    } else if (out.srv.isEmpty()) {
      out.answer = Answer.gone("no SRV record");
    }
    return out;
  }

  /**
   * SRV: every target resolved to its addresses, each priority that has one a tier (RFC 2782: the
   * lowest-numbered priority the client can reach serves): tier 0 the lowest such priority, tier 1
   * the next, and so on. The applier keeps a higher tier out of the table while a lower one has a
   * server up by its verdict ({@code io.fairway.apply.Tiers}).
   */
  private void addresses(DnsNameResolver r, Records recs, CompletableFuture<Answer> out) {
    List<CompletableFuture<List<Answer.Member>>> parts = new ArrayList<>();
    for (int i = 0; i < recs.srv.size(); i++) {
      int[] s = recs.srv.get(i);
      String target = recs.targets.get(i);
      CompletableFuture<List<Answer.Member>> part = new CompletableFuture<>();
      parts.add(part);
      r.resolveAll(target)
          .addListener(
              f -> {
                List<Answer.Member> ms = new ArrayList<>();
                if (f.isSuccess()) {
                  @SuppressWarnings("unchecked")
                  List<InetAddress> as = (List<InetAddress>) f.getNow();
                  for (InetAddress a : as) {
                    String name =
                        as.size() == 1
                            ? target + ":" + s[2]
                            : target + "[" + a.getHostAddress() + "]:" + s[2];
                    ms.add(new Answer.Member(name, a, s[2], s[1]));
                  }
                }
                part.complete(ms);
              });
    }
    Duration ttl = Duration.ofSeconds(recs.ttl == Long.MAX_VALUE ? 0 : recs.ttl);
    CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]))
        .whenComplete(
            (v, e) -> {
              java.util.TreeMap<Integer, List<Answer.Member>> byPriority =
                  new java.util.TreeMap<>();
              for (int i = 0; i < parts.size(); i++) {
                List<Answer.Member> ms = parts.get(i).join();
                if (!ms.isEmpty()) {
                  byPriority.computeIfAbsent(recs.srv.get(i)[0], p -> new ArrayList<>()).addAll(ms);
                }
              }
              r.close();
              List<Answer.Member> all = new ArrayList<>();
              int tier = 0;
              for (List<Answer.Member> ms : byPriority.values()) {
                for (Answer.Member m : ms) {
                  all.add(new Answer.Member(m.name(), m.address(), m.port(), m.weight(), tier));
                }
                tier++;
              }
              out.complete(
                  byPriority.isEmpty()
                      ? Answer.failed("no SRV target resolved to an address")
                      : new Answer(Answer.Outcome.FOUND, all, ttl, ""));
            });
  }

  private static String oneLine(Throwable t) {
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return String.join(" ", m.lines().toList());
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
  }
}

package io.fairway.vrrp.packet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class AdvertCodecTest {
  static final InetAddress SRC4 = addr("10.0.0.1");
  static final InetAddress GROUP4 = addr("224.0.0.18");
  static final InetAddress SRC6 = addr("fe80::1");
  static final InetAddress GROUP6 = addr("ff02::12");

  static InetAddress addr(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Test
  void v2MatchesTheBytesKeepalivedSends() {
    // keepalived 2.2.7, vrid 51, priority 150, advert_int 1, auth PASS "grr02", one address
    // 192.168.200.16 (captured layout: RFC 3768 section 5.1).
    Advert a = new Advert(2, 51, 150, 100, List.of(addr("192.168.200.16")), Optional.of("grr02"));
    byte[] b = AdvertCodec.encode(a, SRC4, GROUP4);
    assertThat(HexFormat.of().formatHex(b))
        .isEqualTo("21339601" + "0101" + hex16(b) + "c0a8c810" + "6772723032000000");
    // The checksum field makes the message sum to zero (RFC 1071).
    assertThat(Checksum.fold(Checksum.add(0, b, 0, b.length))).isZero();
  }

  static String hex16(byte[] b) {
    return HexFormat.of().formatHex(b, 6, 8);
  }

  @Test
  void v3ChecksumCoversThePseudoHeader() throws Exception {
    Advert a = new Advert(3, 7, 100, 100, List.of(addr("10.0.0.100")), Optional.empty());
    byte[] b = AdvertCodec.encode(a, SRC4, GROUP4);
    assertThat(AdvertCodec.decode(b, 0, b.length, SRC4, GROUP4)).isEqualTo(a);
    // The same bytes from another source fail the checksum: the pseudo-header is in it.
    assertThatThrownBy(() -> AdvertCodec.decode(b, 0, b.length, addr("10.0.0.2"), GROUP4))
        .isInstanceOf(MalformedAdvertException.class)
        .hasMessageContaining("checksum");
    // RFC 5798 layout: version 3 type 1, vrid, priority, count, 12-bit interval in cs.
    assertThat(HexFormat.of().formatHex(b, 0, 6)).isEqualTo("310764010064");
  }

  @Test
  void v3OverIpv6() throws Exception {
    Advert a =
        new Advert(
            3, 9, 200, 4095, List.of(addr("2001:db8::1"), addr("fe80::99")), Optional.empty());
    byte[] b = AdvertCodec.encode(a, SRC6, GROUP6);
    assertThat(b).hasSize(8 + 32);
    Advert back = AdvertCodec.decode(b, 0, b.length, SRC6, GROUP6);
    assertThat(back).isEqualTo(a);
    assertThat(back.addresses()).allMatch(x -> x instanceof Inet6Address);
  }

  @Test
  void badPacketsAreOneKindEach() {
    Advert a = new Advert(2, 1, 100, 100, List.of(addr("10.0.0.5")), Optional.empty());
    byte[] good = AdvertCodec.encode(a, SRC4, GROUP4);
    assertKind(new byte[3], MalformedAdvertException.Kind.TRUNCATED);
    byte[] v = good.clone();
    v[0] = 0x41;
    assertKind(v, MalformedAdvertException.Kind.VERSION);
    byte[] t = good.clone();
    t[0] = 0x22;
    assertKind(t, MalformedAdvertException.Kind.TYPE);
    byte[] c = good.clone();
    c[3] = 2;
    assertKind(c, MalformedAdvertException.Kind.LENGTH);
    byte[] s = good.clone();
    s[8] ^= 1;
    assertKind(s, MalformedAdvertException.Kind.CHECKSUM);
    byte[] ah = good.clone();
    ah[4] = 2;
    fixV2Checksum(ah);
    assertKind(ah, MalformedAdvertException.Kind.AUTH_TYPE);
  }

  static void fixV2Checksum(byte[] b) {
    b[6] = 0;
    b[7] = 0;
    int sum = Checksum.fold(Checksum.add(0, b, 0, b.length));
    b[6] = (byte) (sum >> 8);
    b[7] = (byte) sum;
  }

  static void assertKind(byte[] b, MalformedAdvertException.Kind kind) {
    assertThatThrownBy(() -> AdvertCodec.decode(b, 0, b.length, SRC4, GROUP4))
        .isInstanceOfSatisfying(
            MalformedAdvertException.class, e -> assertThat(e.kind()).isEqualTo(kind));
  }

  @Property(tries = 500)
  void roundTrips(@ForAll("adverts") Advert a) throws Exception {
    boolean v4 = a.addresses().isEmpty() || a.addresses().get(0) instanceof Inet4Address;
    InetAddress src = v4 ? SRC4 : SRC6;
    InetAddress dst = v4 ? GROUP4 : GROUP6;
    byte[] b = AdvertCodec.encode(a, src, dst);
    assertThat(AdvertCodec.decode(b, 0, b.length, src, dst)).isEqualTo(a);
  }

  @Property(tries = 2000)
  void anyBytesGiveAnAdvertOrTheDocumentedException(@ForAll byte[] bytes, @ForAll boolean v6) {
    try {
      AdvertCodec.decode(bytes, 0, bytes.length, v6 ? SRC6 : SRC4, v6 ? GROUP6 : GROUP4);
    } catch (MalformedAdvertException expected) {
      assertThat(expected.kind()).isNotNull();
    }
    try {
      Ipv4Datagram.parse(bytes, bytes.length);
    } catch (MalformedAdvertException expected) {
      assertThat(expected.kind()).isNotNull();
    }
  }

  @Property(tries = 1000)
  void anySingleBitFlipIsCaught(@ForAll("adverts") Advert a, @ForAll("bits") int bit) {
    boolean v4 = a.addresses().isEmpty() || a.addresses().get(0) instanceof Inet4Address;
    InetAddress src = v4 ? SRC4 : SRC6;
    InetAddress dst = v4 ? GROUP4 : GROUP6;
    byte[] b = AdvertCodec.encode(a, src, dst);
    int i = Math.floorMod(bit, b.length * 8);
    b[i / 8] ^= (byte) (1 << (i % 8));
    assertThatThrownBy(() -> AdvertCodec.decode(b, 0, b.length, src, dst))
        .isInstanceOf(MalformedAdvertException.class);
  }

  @Provide
  Arbitrary<Integer> bits() {
    return Arbitraries.integers().between(0, 1 << 20);
  }

  @Provide
  Arbitrary<Advert> adverts() {
    Arbitrary<InetAddress> v4 =
        Arbitraries.bytes().array(byte[].class).ofSize(4).map(AdvertCodecTest::byAddress);
    Arbitrary<InetAddress> v6 =
        Arbitraries.bytes().array(byte[].class).ofSize(16).map(AdvertCodecTest::byAddress6);
    Arbitrary<Advert> two =
        Combinators.combine(
                Arbitraries.integers().between(1, 255),
                Arbitraries.integers().between(0, 255),
                Arbitraries.integers().between(1, 255),
                v4.list().ofMaxSize(20),
                Arbitraries.strings()
                    .withCharRange('!', '~')
                    .ofMinLength(1)
                    .ofMaxLength(8)
                    .optional())
            .as(
                (vrid, prio, secs, addrs, pass) ->
                    new Advert(2, vrid, prio, secs * 100, addrs, pass));
    Arbitrary<Advert> three =
        Combinators.combine(
                Arbitraries.integers().between(1, 255),
                Arbitraries.integers().between(0, 255),
                Arbitraries.integers().between(1, 4095),
                Arbitraries.oneOf(v4.list().ofMaxSize(20), v6.list().ofMaxSize(20)))
            .as((vrid, prio, cs, addrs) -> new Advert(3, vrid, prio, cs, addrs, Optional.empty()));
    return Arbitraries.oneOf(two, three);
  }

  static InetAddress byAddress(byte[] b) {
    try {
      return InetAddress.getByAddress(b);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static InetAddress byAddress6(byte[] b) {
    try {
      return Inet6Address.getByAddress(null, b, -1);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void ipv4HeaderGivesTtlAndAddresses() throws Exception {
    Advert a = new Advert(2, 1, 100, 100, List.of(addr("10.0.0.5")), Optional.empty());
    byte[] vrrp = AdvertCodec.encode(a, SRC4, GROUP4);
    byte[] ip = new byte[20 + vrrp.length];
    ip[0] = 0x45;
    ip[2] = 0;
    ip[3] = (byte) ip.length;
    ip[8] = (byte) 255;
    ip[9] = 112;
    System.arraycopy(SRC4.getAddress(), 0, ip, 12, 4);
    System.arraycopy(GROUP4.getAddress(), 0, ip, 16, 4);
    System.arraycopy(vrrp, 0, ip, 20, vrrp.length);
    Ipv4Datagram d = Ipv4Datagram.parse(ip, ip.length);
    assertThat(d.ttl()).isEqualTo(255);
    assertThat(d.source()).isEqualTo(SRC4);
    assertThat(d.destination()).isEqualTo(GROUP4);
    assertThat(
            AdvertCodec.decode(
                ip, d.payloadOffset(), d.payloadLength(), d.source(), d.destination()))
        .isEqualTo(a);
  }
}

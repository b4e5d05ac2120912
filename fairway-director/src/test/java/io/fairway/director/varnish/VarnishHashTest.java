package io.fairway.director.varnish;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Hash vectors from varnish-cache's directors tests (b00003, c00005, c00009, c00010). */
class VarnishHashTest {

  @Test
  void emptyAndNullHashLikeSha256OfNothing() {
    assertThat(VarnishHash.hash32("")).isEqualTo(1438143096L).isEqualTo(0x55b85278L);
    assertThat(VarnishHash.hash32((String) null)).isEqualTo(1438143096L);
    assertThat(VarnishHash.hashStrands32(null, "", null)).isEqualTo(1438143096L);
  }

  @Test
  void hashDirectorVectorsB00003() {
    assertThat(VarnishHash.hash32("/1")).isEqualTo(2555464493L);
    assertThat(VarnishHash.hash32("/3")).isEqualTo(256396116L);
    assertThat(VarnishHash.hash32("/13")).isEqualTo(626305906L);
    assertThat(VarnishHash.hash32("/8")).isEqualTo(2658874499L);
    assertThat(VarnishHash.hash32("127.0.0.1")).isEqualTo(2691776765L);
  }

  @Test
  void shardKeyVectorsC00009() {
    assertThat(VarnishHash.hash32("/def")).isEqualTo(2002449278L);
    assertThat(VarnishHash.hash32("/hash")).isEqualTo(2439792896L);
    assertThat(VarnishHash.hash32("/url")).isEqualTo(3281611639L);
    assertThat(VarnishHash.hash32("/b/url")).isEqualTo(108501858L);
  }

  @Test
  void urlKeysC00005() {
    assertThat(VarnishHash.hash32("/Boo0aixe")).isEqualTo(0xd0b5f795L);
    assertThat(VarnishHash.hash32("/eishoSu2")).isEqualTo(0xdace4662L);
    assertThat(VarnishHash.hash32("/Aunah3uo")).isEqualTo(0x97b73d62L);
  }

  @Test
  void strandsConcatenateWithoutSeparator() {
    assertThat(VarnishHash.hashStrands32("ab", "c")).isEqualTo(VarnishHash.hash32("abc"));
    // ident "s1" replica 10 collides with ident "s11" replica 0
    assertThat(VarnishHash.ringPoint("s1", 10)).isEqualTo(VarnishHash.ringPoint("s11", 0));
  }

  @Test
  void bulkRingPointsEqualOneByOne() {
    int[] pts = VarnishHash.ringPoints("node-\u00e9", 120);
    for (int j = 0; j < pts.length; j++) {
      assertThat(Integer.toUnsignedLong(pts[j])).isEqualTo(VarnishHash.ringPoint("node-\u00e9", j));
    }
  }

  @Test
  void singlePointIdentsC00010() {
    assertThat(VarnishHash.ringPoint("s1", 0)).isEqualTo(0xf08ad325L);
    assertThat(VarnishHash.ringPoint("s2", 0)).isEqualTo(0x6e040182L);
    assertThat(VarnishHash.ringPoint("s1_1", 0)).isEqualTo(0xbae80b0bL);
    assertThat(VarnishHash.ringPoint("s1_2", 0)).isEqualTo(0x732c7bbeL);
  }

  @Test
  void digestKeyIsFirstFourBytesBigEndianC00009() {
    assertThat(VarnishHash.digestKey("/b/def", "127.0.0.1")).isEqualTo(0x93d1c4adL);
    assertThat(VarnishHash.digestKey("/b/hash", "127.0.0.1")).isEqualTo(0xe47da20eL);
    assertThat(VarnishHash.digestKey("/b/c/hash/def", "127.0.0.1")).isEqualTo(0xdf9a465fL);
    assertThat(VarnishHash.digestKey("/b/c/hash/hash", "127.0.0.1")).isEqualTo(0x0eb35bc1L);
    assertThat(VarnishHash.digestKey("/b/c/hash/blob", "127.0.0.1")).isEqualTo(0xd7eecc0aL);
  }

  @Test
  void nonAsciiKeysHashTheirUtf8Bytes() throws Exception {
    String s = "/caf\u00e9/\u65e5\u672c";
    byte[] d =
        java.security.MessageDigest.getInstance("SHA-256")
            .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    long expected =
        (d[28] & 0xFFL) | (d[29] & 0xFFL) << 8 | (d[30] & 0xFFL) << 16 | (d[31] & 0xFFL) << 24;
    assertThat(VarnishHash.hash32(s))
        .isEqualTo(expected)
        .isEqualTo(VarnishHash.hashStrands32("/caf\u00e9", "/\u65e5\u672c"));
    // a long key grows the scratch buffer and still hashes like the strands version
    String longKey = "/x".repeat(400);
    assertThat(VarnishHash.hash32(longKey))
        .isEqualTo(VarnishHash.hashStrands32(longKey.substring(0, 7), longKey.substring(7)));
  }

  @Test
  void blobKeys() {
    assertThat(VarnishHash.blobKey(null)).isZero();
    assertThat(VarnishHash.blobKey(new byte[0])).isZero();
    assertThat(VarnishHash.blobKey(new byte[] {1})).isEqualTo(1);
    assertThat(VarnishHash.blobKey(new byte[] {1, 2})).isEqualTo(0x0102);
    assertThat(
            VarnishHash.blobKey(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0}))
        .isEqualTo(4294967295L);
  }
}

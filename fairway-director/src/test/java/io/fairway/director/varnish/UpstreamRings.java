package io.fairway.director.varnish;

/** Upstream shard rings from varnish-cache's vmod/tests (idx, point in hex, host index). */
final class UpstreamRings {
  private UpstreamRings() {}

  /** directors_c00007: s1, s2, s3, weight 1, replicas 25. */
  static final String C00007 =
      """
      0 03b6b56a h0  1 066986a7 h2  2 07e41e30 h2  3 0b749e7b h2  4 0e543430 h0
      5 10136c05 h0  6 102d847f h2  7 1112f910 h1  8 1119a7c7 h2  9 22464ee9 h1
      10 22b35675 h0  11 2363bebb h1  12 259eeccf h1  13 26f0c3e7 h1  14 28340f35 h0
      15 285e8475 h0  16 28ec7a6f h1  17 2da0e37b h0  18 3392487a h0  19 37597c4c h2
      20 4b1f5b22 h1  21 523723f2 h2  22 539234db h0  23 564ca84f h0  24 5d2df428 h0
      25 5fa294ee h2  26 60dded53 h1  27 6257bc27 h0  28 64014b25 h2  29 6bfd5a2d h0
      30 6e040182 h1  31 6e3819f7 h2  32 7232b381 h1  33 74c384ad h1  34 83ce71ce h1
      35 888b6447 h2  36 8997c018 h1  37 8aa6b5b4 h2  38 8b47e6ac h1  39 8bc8bc11 h0
      40 8e2d3849 h0  41 8e7e012c h2  42 99892987 h2  43 9a6f2f00 h0  44 9ef9125d h0
      45 9f33cd30 h2  46 9fc69b51 h0  47 a19f99eb h1  48 a28b9595 h0  49 a8afe9c4 h0
      50 ad923ad3 h1  51 ae8946c6 h2  52 b197e339 h1  53 b3c305e6 h1  54 b6bf43ea h2
      55 b9004d3d h0  56 bbcc0bad h1  57 c2542a5d h2  58 c6c43fa7 h1  59 c945958a h2
      60 cbd9198a h0  61 d4c93105 h0  62 d7de63b6 h1  63 d937a7df h2  64 dac52229 h2
      65 db7840f0 h1  66 dd5c6bef h1  67 dfd5333b h1  68 e991584c h2  69 ec8891c5 h1
      70 ef6b4ab5 h2  71 f08ad325 h0  72 f3325ba2 h2  73 f6530dd1 h0  74 fc28e8d2 h2
      """;

  /** directors_c00006: s1 weight 1, s2 weight 2, s3 weight 3, replicas 25. */
  static final String C00006 =
      """
      0 0238d0ef h2  1 0321c598 h2  2 03b6b56a h0  3 0408ec1e h2  4 066986a7 h2
      5 07e41e30 h2  6 0b749e7b h2  7 0e543430 h0  8 10136c05 h0  9 102d847f h2
      10 1112f910 h1  11 1119a7c7 h2  12 14d95c44 h2  13 150fea1f h1  14 1643ecb6 h1
      15 189ff2f2 h1  16 19cfe9f3 h1  17 1e1c78c3 h2  18 1fe0dea0 h2  19 22464ee9 h1
      20 22b35675 h0  21 2363bebb h1  22 24f827bb h2  23 259eeccf h1  24 26f0c3e7 h1
      25 271874d4 h1  26 28340f35 h0  27 285e8475 h0  28 28ec7a6f h1  29 299c6298 h2
      30 2aedc3f7 h2  31 2b031742 h1  32 2da0e37b h0  33 310bd2ca h2  34 31e5f2df h2
      35 32d6b3ed h1  36 33047373 h2  37 3392487a h0  38 37597c4c h2  39 3f6b2b89 h1
      40 43cf6426 h2  41 46a58f28 h2  42 4b1f5b22 h1  43 523723f2 h2  44 539234db h0
      45 564ca84f h0  46 58501380 h2  47 58704432 h1  48 5b1bcbbe h2  49 5d2df428 h0
      50 5fa294ee h2  51 606fd878 h2  52 60dded53 h1  53 616cdb68 h1  54 6257bc27 h0
      55 64014b25 h2  56 6918f467 h1  57 6a08c380 h2  58 6bfd5a2d h0  59 6c0b607a h1
      60 6c74d296 h1  61 6e040182 h1  62 6e3819f7 h2  63 720ec1a4 h2  64 7232b381 h1
      65 74c384ad h1  66 76d47350 h2  67 791eb3a3 h1  68 7a048f20 h2  69 7f874929 h2
      70 83ce71ce h1  71 888b6447 h2  72 8997c018 h1  73 89b7d09c h2  74 8aa6b5b4 h2
      75 8ae34bde h1  76 8b382e03 h2  77 8b47e6ac h1  78 8bc76115 h2  79 8bc8bc11 h0
      80 8e2d3849 h0  81 8e7e012c h2  82 8f5b4c63 h2  83 94a94162 h2  84 99892987 h2
      85 9a6f2f00 h0  86 9b970b49 h1  87 9e09a3a7 h2  88 9ef9125d h0  89 9f33cd30 h2
      90 9fc69b51 h0  91 a19f99eb h1  92 a28b9595 h0  93 a3582038 h1  94 a4b6a3b9 h2
      95 a66da9cb h2  96 a8657c76 h2  97 a8afe9c4 h0  98 aa488703 h2  99 ac7b4454 h2
      100 ad923ad3 h1  101 ae8946c6 h2  102 b197e339 h1  103 b3c305e6 h1  104 b4dab004 h2
      105 b6bf43ea h2  106 b9004d3d h0  107 b96b6455 h2  108 b9a0edb9 h1  109 b9ec6465 h2
      110 bb8eed4d h2  111 bbcc0bad h1  112 bcfea141 h2  113 be300622 h2  114 bf514d68 h2
      115 c1afc7d2 h1  116 c2542a5d h2  117 c6c43fa7 h1  118 c945958a h2  119 c9f304a4 h1
      120 cb896aa8 h1  121 cbd9198a h0  122 ccd61dad h2  123 d07e4431 h2  124 d21fe35f h1
      125 d4c93105 h0  126 d570b815 h2  127 d7de63b6 h1  128 d8634aef h2  129 d92d916d h2
      130 d937a7df h2  131 dac52229 h2  132 db7840f0 h1  133 dd5c6bef h1  134 dded5798 h2
      135 dfd5333b h1  136 e183345a h1  137 e2c71c27 h2  138 e49bf9d8 h2  139 e72bc224 h2
      140 e8b27f41 h1  141 e991584c h2  142 ea201c5e h2  143 ec8891c5 h1  144 edcc8dd9 h1
      145 ef6b4ab5 h2  146 f08ad325 h0  147 f3325ba2 h2  148 f6530dd1 h0  149 fc28e8d2 h2
      """;
}

package dev.cryo.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FrameCodecTest {

  @Test
  void theWrittenHeadersAreTheJsonJacksonWouldWriteAndParseBack() throws Exception {
    ObjectMapper json = new ObjectMapper();
    FrameCodec codec = FrameCodec.forReader();
    for (FrameKind kind : FrameKind.values()) {
      byte[] header = FrameCodec.header(kind, 9_007_199_254_740_993L, "drop_user/x:y.z-1", "c_1",
          "a \"quoted\" \\ message\n\u00e9\u20ac");
      @SuppressWarnings("unchecked")
      Map<String, Object> parsed = json.readValue(header, Map.class);
      Frame frame = codec.parseHeader(kind, header, new byte[0]);
      assertThat(frame.method()).isEqualTo("drop_user/x:y.z-1");
      assertThat(parsed.get("method")).isEqualTo("drop_user/x:y.z-1");
      if (kind == FrameKind.EVENT) {
        assertThat(parsed).containsOnlyKeys("method");
      } else {
        assertThat(frame.id()).isEqualTo(9_007_199_254_740_993L);
        assertThat(((Number) parsed.get("id")).longValue()).isEqualTo(9_007_199_254_740_993L);
      }
      if (kind == FrameKind.ERROR) {
        assertThat(frame.message()).isEqualTo("a \"quoted\" \\ message\n\u00e9\u20ac");
        assertThat(frame.code()).isEqualTo("c_1");
      }
    }
    assertThat(new String(FrameCodec.header(FrameKind.CALL, 1, "ping", null, null), UTF_8))
        .isEqualTo("{\"id\":1,\"method\":\"ping\"}");
  }

  /**
   * A call's, reply's or event's head encoded straight into one array holds the very bytes of the
   * prelude and {@link FrameCodec#header}, for ids of every length and sign and names up to 128
   * characters.
   */
  @Test
  void aHeadWrittenInPlaceIsThePreludeAndTheHeader() {
    Random random = new Random(11);
    long[] ids = new long[40];
    long[] fixed = {0, 1, 9, 10, 99, 100, -1, -10, Long.MIN_VALUE, Long.MAX_VALUE,
        9_007_199_254_740_993L};
    System.arraycopy(fixed, 0, ids, 0, fixed.length);
    for (int i = fixed.length; i < ids.length; i++) {
      ids[i] = random.nextLong() >> random.nextInt(64);
    }
    byte[] payload = {1, 2, 3};
    for (FrameKind kind : new FrameKind[] {FrameKind.CALL, FrameKind.REPLY, FrameKind.EVENT}) {
      for (String method : new String[] {"a", "ping", "drop_user/x:y.z-1", "m".repeat(128)}) {
        for (long id : ids) {
          FrameCodec.Outbound inPlace = FrameCodec.frame(kind, id, method, payload,
              WireLimits.defaults());
          FrameCodec.Outbound twoSteps = FrameCodec.frame(kind,
              FrameCodec.header(kind, id, method, null, null), payload, WireLimits.defaults());
          assertThat(inPlace.head()).as("%s %d %s", kind, id, method)
              .isEqualTo(twoSteps.head());
          assertThat(FrameCodec.digits(id)).isEqualTo(Long.toString(id).length());
        }
      }
    }
  }

  /**
   * Encoding a call's frame allocates its head and little else: no header string and no header
   * array besides the head (a small frame's allocation, twice over on every round trip).
   */
  @Test
  void aCallsFrameAllocatesItsHeadAndLittleElse() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)
        java.lang.management.ManagementFactory.getThreadMXBean();
    byte[] payload = new byte[16];
    WireLimits limits = WireLimits.defaults();
    long lengths = 0;
    int frames = 20_000;
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < frames; i++) {
      lengths += FrameCodec.frame(FrameKind.CALL, 1_000_000 + i, "ping", payload, limits)
          .length();
    }
    long perFrame = (threads.getCurrentThreadAllocatedBytes() - before) / frames;
    assertThat(lengths).isEqualTo((long) frames * (14 + 30 + 16));
    // the head (16 + 44 bytes, 64 with padding) and the Outbound record (24): about 88; a
    // header string and its bytes before the head add about 120 more
    assertThat(perFrame).as("bytes allocated per frame").isLessThan(140);
  }

  @Test
  void namesAreOneTo128CharactersOfTheAllowedSet() {
    assertThat(Frame.isName("freeze_user")).isTrue();
    assertThat(Frame.isName("a".repeat(128))).isTrue();
    assertThat(Frame.isName("a".repeat(129))).isFalse();
    assertThat(Frame.isName("")).isFalse();
    assertThat(Frame.isName(null)).isFalse();
    for (String bad : new String[] {"a b", "a\"b", "a\\b", "\u00e9", "a\nb", "a,b", "{}"}) {
      assertThat(Frame.isName(bad)).as(bad).isFalse();
    }
  }

  /**
   * The fast path of the header parser (the two headers the codec writes itself) reads every
   * header it accepts exactly as the strict parser does, over written headers and many seeded
   * mutations of them (a byte changed, inserted or removed); the rest goes to the strict parser.
   */
  @Test
  void theFastPathOfTheHeaderParserReadsAsTheStrictParserDoes() {
    FrameCodec codec = FrameCodec.forReader();
    Random random = new Random(20261201L);
    byte[] alphabet = "{}\":,0123456789 -_./:aAzZ\\\u00e9\t".getBytes(UTF_8);
    byte[] payload = new byte[0];
    int accepted = 0;
    int acceptedMutations = 0;
    for (int round = 0; round < 20_000; round++) {
      FrameKind kind = round % 3 == 0 ? FrameKind.EVENT : round % 3 == 1 ? FrameKind.CALL
          : FrameKind.REPLY;
      long id = switch (round % 4) {
        case 0 -> 1 + random.nextInt(9);
        case 1 -> 1 + random.nextInt(Integer.MAX_VALUE);
        case 2 -> 999_999_999_999_999_999L;
        default -> Long.MAX_VALUE - random.nextInt(10);
      };
      String method = round % 5 == 0 ? "m".repeat(1 + random.nextInt(130))
          : "drop_user/x:y.z-" + random.nextInt(100);
      byte[] header = FrameCodec.header(kind, id, method, null, null);
      int mutations = round % 2 == 0 ? 0 : 1 + random.nextInt(3);
      for (int m = 0; m < mutations; m++) {
        header = mutate(header, random, alphabet);
      }
      Frame fast = FrameCodec.parseCommon(kind, header, payload);
      if (fast == null) {
        continue;
      }
      accepted++;
      acceptedMutations += mutations > 0 ? 1 : 0;
      String shown = new String(header, UTF_8);
      Frame strict;
      try {
        strict = codec.parseStrict(kind, header, payload);
      } catch (MalformedFrameException e) {
        throw new AssertionError("the fast path accepted " + shown + " as " + fast
            + "; the strict parser refuses it: " + e.reason(), e);
      }
      assertThat(fast).as(shown).isEqualTo(strict);
    }
    assertThat(accepted).as("headers the fast path read").isGreaterThan(5_000);
    assertThat(acceptedMutations).as("mutated headers the fast path read").isGreaterThan(100);
  }

  private static byte[] mutate(byte[] header, Random random, byte[] alphabet) {
    int at = random.nextInt(header.length + 1);
    byte b = alphabet[random.nextInt(alphabet.length)];
    return switch (random.nextInt(3)) {
      case 0 -> { // change one byte
        byte[] out = header.clone();
        out[Math.min(at, out.length - 1)] = b;
        yield out;
      }
      case 1 -> { // insert one
        byte[] out = new byte[header.length + 1];
        System.arraycopy(header, 0, out, 0, at);
        out[at] = b;
        System.arraycopy(header, at, out, at + 1, header.length - at);
        yield out;
      }
      default -> { // remove one
        int cut = Math.min(at, header.length - 1);
        byte[] out = new byte[header.length - 1];
        System.arraycopy(header, 0, out, 0, cut);
        System.arraycopy(header, cut + 1, out, cut, header.length - cut - 1);
        yield Arrays.copyOf(out, out.length);
      }
    };
  }
}

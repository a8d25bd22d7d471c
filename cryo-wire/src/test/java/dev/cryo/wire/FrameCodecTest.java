package dev.cryo.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
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
}

package dev.cryo.wire.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProtocolCodecTest {

  @Test
  void anHttpCallRoundTripsWithItsBodyBytes() {
    byte[] body = {0, 1, 2, (byte) 0xff};
    HttpCall call = new HttpCall(null, "c1", Grant.wake(9, 4), "POST", "/api/counter", "a=1",
        List.of(List.of("content-type", "application/json")), body,
        new MoveInfo("w1", "w2", null));

    HttpCall back = ProtocolCodec.read(ProtocolCodec.write(call), HttpCall.class);

    assertThat(back.user()).isNull();
    assertThat(back.grant()).isEqualTo(Grant.wake(9, 4));
    assertThat(back.body()).containsExactly(body);
    assertThat(back.headers()).isEqualTo(call.headers());
    assertThat(back.move()).isEqualTo(call.move());
  }

  @Test
  void aPhotoRoundTrips() {
    PhotoMessage photo = new PhotoMessage(7, "w1", "main", PhotoMessage.RUNNING, 42, 1000, -1, 10,
        100, 1, 1, 2, 0, 5, 0, Map.of("anna", new PhotoMessage.UserEntry("active",
            Map.of("c1", 2), 0, 900, 0, null, 3)));

    assertThat(ProtocolCodec.read(ProtocolCodec.write(photo), PhotoMessage.class))
        .isEqualTo(photo);
  }

  @Test
  void aPageOfAPhotoRoundTripsAndCoversOnlyItsRange() {
    PhotoMessage page = new PhotoMessage(7, "w1", "main", PhotoMessage.RUNNING, 42, 1000, -1, 10,
        100, 3, 1, 2, 0, 5, 0, Map.of("bob", new PhotoMessage.UserEntry("active",
            Map.of("c1", 2), 0, 900, 0, null, 3)), "anna", "bob");

    assertThat(ProtocolCodec.read(ProtocolCodec.write(page), PhotoMessage.class))
        .isEqualTo(page);
    assertThat(page.covers("anna")).as("the previous page's last").isFalse();
    assertThat(page.covers("anna2")).isTrue();
    assertThat(page.covers("bob")).as("its own last").isTrue();
    assertThat(page.covers("carl")).as("the next page's").isFalse();
  }

  @Test
  void aPhotoWithoutARangeIsWholeAndAnEmptyPingAsksForTheFirstPage() {
    byte[] whole = ProtocolCodec.write(new PhotoMessage(7, "w1", "main", PhotoMessage.RUNNING, 42,
        1000, -1, 10, 100, 0, 0, 0, 0, 5, 0, Map.of()));
    PhotoMessage read = ProtocolCodec.read(whole, PhotoMessage.class);

    assertThat(read.usersAfter()).isNull();
    assertThat(read.usersThrough()).isNull();
    assertThat(read.covers("anyone")).isTrue();
    assertThat(ProtocolCodec.read("{}".getBytes(StandardCharsets.UTF_8), PhotoRequest.class))
        .isEqualTo(PhotoRequest.FIRST);
  }

  @Test
  void unknownFieldsAreIgnored() {
    byte[] json = "{\"user\":\"anna\",\"later\":{\"x\":1}}".getBytes(StandardCharsets.UTF_8);

    assertThat(ProtocolCodec.read(json, UserOrder.class)).isEqualTo(UserOrder.of("anna"));
    assertThat(ProtocolCodec.read(ProtocolCodec.write(new UserOrder("anna", true, 5L)),
        UserOrder.class).ofQuit()).isTrue();
  }

  @Test
  void aMissingRequiredFieldDuplicateKeyOrTrailingTokenIsRefused() {
    assertThatThrownBy(() -> ProtocolCodec.read(bytes("{}"), UserOrder.class))
        .isInstanceOf(ProtocolException.class).hasMessageContaining("UserOrder");
    assertThatThrownBy(() -> ProtocolCodec.read(bytes("{\"user\":\"a\",\"user\":\"b\"}"),
        UserOrder.class)).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> ProtocolCodec.read(bytes("{\"user\":\"a\"} {}"), UserOrder.class))
        .isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> ProtocolCodec.read(bytes("null"), UserOrder.class))
        .isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> ProtocolCodec.read(bytes("{\"dropped\":null}"), Dropped.class))
        .isInstanceOf(ProtocolException.class);
  }

  @Test
  void noBytesAreRefusedOnBothPaths() {
    assertThatThrownBy(() -> ProtocolCodec.read(null, HttpCall.class))
        .isInstanceOf(ProtocolException.class).hasMessageContaining("HttpCall");
    assertThatThrownBy(() -> ProtocolCodec.read(null, Dropped.class))
        .isInstanceOf(ProtocolException.class).hasMessageContaining("Dropped");
    assertThatThrownBy(() -> ProtocolCodec.read(new byte[0], HttpCall.class))
        .isInstanceOf(ProtocolException.class).hasMessageContaining("HttpCall message did not read");
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}

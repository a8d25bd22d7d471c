package dev.cryo.wire.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.assertj.core.api.recursive.comparison.RecursiveComparisonConfiguration;

/**
 * For every message written and read by hand, over random values: the hand-written writer's bytes
 * are data binding's bytes, exactly; both readers read them to equal records (byte arrays by
 * content), equal to the value written; and {@link ProtocolCodec} dispatches the type to the
 * hand-written code.
 */
class HandWrittenCodecPropertiesTest extends MessageProviders {

  @Property(tries = 400)
  void anHttpCallIsWrittenAndReadAsByDataBinding(@ForAll("httpCalls") HttpCall call)
      throws IOException {
    check(call, HttpCall.class);
  }

  @Property(tries = 400)
  void anHttpResultIsWrittenAndReadAsByDataBinding(@ForAll("httpResults") HttpResult result)
      throws IOException {
    check(result, HttpResult.class);
  }

  @Property(tries = 400)
  void anAnnouncementIsWrittenAndReadAsByDataBinding(
      @ForAll("announcements") AnnouncementMessage announcement) throws IOException {
    check(announcement, AnnouncementMessage.class);
  }

  @Property(tries = 300)
  void aUserOrderIsWrittenAndReadAsByDataBinding(@ForAll("userOrders") UserOrder order)
      throws IOException {
    check(order, UserOrder.class);
  }

  @Property(tries = 300)
  void aFreezeResultIsWrittenAndReadAsByDataBinding(@ForAll("freezeResults") FreezeResult result)
      throws IOException {
    check(result, FreezeResult.class);
  }

  @Property(tries = 300)
  void aPushMessageIsWrittenAndReadAsByDataBinding(@ForAll("pushMessages") PushMessage push)
      throws IOException {
    check(push, PushMessage.class);
  }

  @Property(tries = 300)
  void aPushResultIsWrittenAndReadAsByDataBinding(@ForAll("pushResults") PushResult result)
      throws IOException {
    check(result, PushResult.class);
  }

  private static <T> void check(T message, Class<T> type) throws IOException {
    byte[] byHand = MessageWriters.write(message);
    byte[] bound = ProtocolCodec.writeBound(message);
    assertThat(byHand).as("written by hand").isNotNull();
    // Latin-1 maps each byte to one char: equal strings are equal bytes, and a failure shows text.
    assertThat(latin1(byHand)).isEqualTo(latin1(bound));
    assertThat(latin1(ProtocolCodec.write(message))).isEqualTo(latin1(bound));

    assertThat(MessageReaders.reads(type)).isTrue();
    T read = ProtocolCodec.read(bound, type);
    T readBound = ProtocolCodec.readBound(bound, type);
    assertThat(read).usingRecursiveComparison(BY_CONTENT).isEqualTo(readBound);
    assertThat(read).usingRecursiveComparison(BY_CONTENT).isEqualTo(message);
  }

  /** Records field by field, lists element by element, byte arrays by content. */
  static final RecursiveComparisonConfiguration BY_CONTENT = RecursiveComparisonConfiguration
      .builder().withEqualsForType(Arrays::equals, byte[].class).build();

  private static String latin1(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }
}

package dev.cryo.wire.protocol;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.Provide;

/**
 * The random messages of the hand-written codec's properties, one provider per message type
 * ({@link MessageArbitraries}), named as the properties' {@code @ForAll} ask for them.
 */
abstract class MessageProviders {

  @Provide
  Arbitrary<HttpCall> httpCalls() {
    return MessageArbitraries.httpCalls();
  }

  @Provide
  Arbitrary<HttpResult> httpResults() {
    return MessageArbitraries.httpResults();
  }

  @Provide
  Arbitrary<AnnouncementMessage> announcements() {
    return MessageArbitraries.announcements();
  }

  @Provide
  Arbitrary<UserOrder> userOrders() {
    return MessageArbitraries.userOrders();
  }

  @Provide
  Arbitrary<FreezeResult> freezeResults() {
    return MessageArbitraries.freezeResults();
  }

  @Provide
  Arbitrary<PushMessage> pushMessages() {
    return MessageArbitraries.pushMessages();
  }

  @Provide
  Arbitrary<PushResult> pushResults() {
    return MessageArbitraries.pushResults();
  }
}

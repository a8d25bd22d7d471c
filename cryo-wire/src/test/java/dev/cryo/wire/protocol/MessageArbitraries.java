package dev.cryo.wire.protocol;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Random values of the messages written and read by hand: strings null, empty, long, of every
 * UTF-16 unit (control characters, lone surrogates) and of every code point (surrogate pairs);
 * byte arrays empty, small and large; lists empty, with null elements where a record takes them,
 * nested; numbers over their whole range.
 */
final class MessageArbitraries {

  private MessageArbitraries() {}

  /** A string of any kind, never null. */
  static Arbitrary<String> text() {
    Arbitrary<String> codePoints = Arbitraries.integers().between(0, Character.MAX_CODE_POINT)
        .filter(c -> c < Character.MIN_SURROGATE || c > Character.MAX_SURROGATE)
        .list().ofMaxSize(24)
        .map(points -> new String(points.stream().mapToInt(Integer::intValue).toArray(), 0,
            points.size()));
    return Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.strings().alpha().numeric().withChars("_-/")
            .ofMaxLength(16)),
        Tuple.of(3, Arbitraries.strings().all().ofMaxLength(40)),
        Tuple.of(3, codePoints),
        Tuple.of(2, Arbitraries.strings().withCharRange('\u0000', '\u001f')
            .withChars("\"\\/\u007f\u0080\u2028\u2029\ufeff\uffff").ofMaxLength(12)),
        Tuple.of(1, Arbitraries.just("")),
        Tuple.of(1, Arbitraries.strings().all().ofMinLength(3000)
            .ofMaxLength(40_000)));
  }

  /** A string of any kind, or null. */
  static Arbitrary<String> nullableText() {
    return text().injectNull(0.2);
  }

  /** Bytes: empty, small, or large (past the generator's and the parser's buffers). */
  static Arbitrary<byte[]> bytes() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just(new byte[0])),
        Tuple.of(6, Arbitraries.bytes().array(byte[].class).ofMaxSize(80)),
        Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMinSize(8000)
            .ofMaxSize(120_000)));
  }

  /** Lists of lists of strings, with null lists and null strings among them, or null. */
  static Arbitrary<List<List<String>>> stringLists() {
    return nullableText().list().ofMaxSize(4).injectNull(0.1).list().ofMaxSize(6)
        .injectNull(0.1);
  }

  static Arbitrary<MoveInfo> moveInfos() {
    return Combinators.combine(nullableText(), nullableText(), nullableText())
        .as(MoveInfo::new);
  }

  static Arbitrary<HttpCall> httpCalls() {
    Arbitrary<String[]> strings = Combinators.combine(nullableText(), text(), text(), text(),
        nullableText(), nullableText(), nullableText()).as((user, connection, method, path, query,
            credential, successor)
            -> new String[] {user, connection, method, path, query, credential, successor});
    Arbitrary<Grant> grants = Combinators.combine(Arbitraries.of(Grant.Kind.values()),
        Arbitraries.longs().between(0, Long.MAX_VALUE),
        Arbitraries.longs().between(0, Long.MAX_VALUE))
        .as((kind, generation, parcel) -> new Grant(kind, generation,
            kind == Grant.Kind.WAKE ? parcel : 0));
    return Combinators.combine(strings, grants, stringLists(),
        bytes().injectNull(0.1), moveInfos().injectNull(0.5),
        Arbitraries.of(Boolean.TRUE, Boolean.FALSE).injectNull(0.4))
        .as((s, grant, headers, body, move, socketless) -> new HttpCall(s[0], s[1], grant,
            s[2], s[3], s[4], headers, body, move, socketless, s[5], s[6]));
  }

  static Arbitrary<HttpResult> httpResults() {
    return Combinators.combine(Arbitraries.integers(), stringLists(), bytes().injectNull(0.1),
        nullableText(), Arbitraries.longs()).as(HttpResult::new);
  }

  static Arbitrary<AnnouncementMessage> announcements() {
    Arbitrary<String> kinds = Arbitraries.oneOf(Arbitraries.of(AnnouncementKind.values())
        .map(AnnouncementKind::code), text());
    return Combinators.combine(Arbitraries.longs(), kinds, nullableText(),
        text().list().ofMaxSize(6).injectNull(0.1), nullableText(), Arbitraries.longs(),
        nullableText()).as(AnnouncementMessage::new);
  }

  static Arbitrary<UserOrder> userOrders() {
    return Combinators.combine(text(), Arbitraries.of(Boolean.TRUE, Boolean.FALSE)
        .injectNull(0.3), Arbitraries.longs().injectNull(0.3)).as(UserOrder::new);
  }

  static Arbitrary<FreezeResult> freezeResults() {
    Arbitrary<String> outcomes = Arbitraries.oneOf(Arbitraries.of(FreezeResult.FROZEN,
        FreezeResult.DROPPED, FreezeResult.NOT_HERE, FreezeResult.FAILED), text());
    return Combinators.combine(outcomes, nullableText()).as(FreezeResult::new);
  }

  static Arbitrary<PushMessage> pushMessages() {
    return Combinators.combine(Arbitraries.of(PushMessage.PAGE, PushMessage.CONNECTION,
        PushMessage.USER), text(), bytes()).as(PushMessage::new);
  }

  static Arbitrary<PushResult> pushResults() {
    return Arbitraries.integers().greaterOrEqual(0).flatMap(pages -> Arbitraries.integers()
        .between(0, pages).map(written -> new PushResult(pages, written)));
  }
}

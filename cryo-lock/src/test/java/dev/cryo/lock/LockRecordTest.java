package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LockRecordTest {

  private static final String TOKEN = "5f0c2b8e9d7a41c3b6e2f18a0d9c4e77";
  private static final String BOOT = "3c1e0a4e-5f4e-4a5b-9a53-1f7c3e0b1d2a";

  private static LockRecord sample() {
    return new LockRecord(4242, 91325734, BOOT, "build-7", "nightly import", TOKEN,
        Instant.parse("2026-11-29T16:31:05.123Z"), 4250, 91325790);
  }

  @Test
  void freshRecordRoundTrips() throws Exception {
    LockRecord fresh = LockRecord.fresh(ProcessIdentity.current(), "round trip")
        .withCompanion(77, 1234);

    assertThat(LockRecord.parse(fresh.toBytes())).isEqualTo(fresh);
    assertThat(fresh.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(fresh.token()).matches("[0-9a-f]{32}");
    assertThat(LockRecord.fresh(ProcessIdentity.current(), "x").token())
        .isNotEqualTo(fresh.token());
  }

  @Test
  void fileIsOneKeyValuePairPerLineForOperators() {
    String text = new String(sample().toBytes(), StandardCharsets.UTF_8);

    assertThat(text).isEqualTo("""
        cryo-lock 1
        pid 4242
        start 91325734
        boot 3c1e0a4e-5f4e-4a5b-9a53-1f7c3e0b1d2a
        host build-7
        holder nightly import
        token 5f0c2b8e9d7a41c3b6e2f18a0d9c4e77
        since 2026-11-29T16:31:05.123Z
        companion 4250 91325790
        """);
    assertThat(sample().describe()).isEqualTo("pid 4242 on build-7 (\"nightly import\") since"
        + " 2026-11-29T16:31:05.123Z, with companion pid 4250");
  }

  @Test
  void unknownFieldsAreLeftOutOfTheFile() throws Exception {
    LockRecord minimal = new LockRecord(9, -1, null, null, null, null, null, 0, -1);

    assertThat(new String(minimal.toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("cryo-lock 1\npid 9\n");
    assertThat(LockRecord.parse(minimal.toBytes())).isEqualTo(minimal);
    assertThat(minimal.startTicks()).isEmpty();
    assertThat(sample().startTicks()).hasValue(91325734);
  }

  @ParameterizedTest
  @MethodSource("barePids")
  void aBareDecimalPidReadsAsAPidOnlyRecord(String content, long pid) throws Exception {
    LockRecord record = LockRecord.parse(content.getBytes(StandardCharsets.US_ASCII));

    assertThat(record).isEqualTo(new LockRecord(pid, -1, null, null, null, null, null, 0, -1));
    assertThat(record.isBarePid()).isTrue();
  }

  static Stream<Arguments> barePids() {
    return Stream.of(
        Arguments.of("4242", 4242L),
        Arguments.of("4242\n", 4242L),
        Arguments.of("  17 \r\n", 17L),
        Arguments.of("9223372036854775807", Long.MAX_VALUE));
  }

  @Test
  void aFullRecordIsNotBarePid() {
    assertThat(sample().isBarePid()).isFalse();
    assertThat(new LockRecord(5, -1, null, null, "only a name", null, null, 0, -1).isBarePid())
        .as("a holder name alone does not make a record more than a pid: nothing to judge by")
        .isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void strictParsingRefusesWhatIsNotARecord(String why, byte[] bytes, String problem) {
    assertThatThrownBy(() -> LockRecord.parse(bytes))
        .as(why)
        .isInstanceOf(MalformedRecordException.class)
        .hasMessageContaining(problem);
  }

  static Stream<Arguments> malformed() {
    String valid = new String(sample().toBytes(), StandardCharsets.UTF_8);
    byte[] invalidUtf8 = (valid + "holder x").getBytes(StandardCharsets.UTF_8);
    invalidUtf8 = Arrays.copyOf(invalidUtf8, invalidUtf8.length + 2);
    invalidUtf8[invalidUtf8.length - 2] = (byte) 0xc3;
    invalidUtf8[invalidUtf8.length - 1] = (byte) 0x28;
    byte[] oversize = new byte[LockRecord.MAX_BYTES + 1];
    Arrays.fill(oversize, (byte) '7');
    return Stream.of(
        arguments("empty", "", "empty"),
        arguments("blank", " \n\t\n", "empty"),
        arguments("unknown key", valid + "color blue\n", "unknown key 'color'"),
        arguments("duplicate key", valid + "pid 4243\n", "'pid' appears twice"),
        arguments("duplicate holder", "cryo-lock 1\npid 1\nholder a\nholder b\n",
            "'holder' appears twice"),
        arguments("missing pid", "cryo-lock 1\nstart 5\n", "no pid"),
        arguments("pid zero", "cryo-lock 1\npid 0\n", "pid must be positive"),
        arguments("bare pid zero", "0\n", "pid must be positive"),
        arguments("negative pid", "cryo-lock 1\npid -4\n", "not a decimal number"),
        arguments("pid beyond long", "cryo-lock 1\npid 9223372036854775808\n", "out of range"),
        arguments("pid with sign", "cryo-lock 1\npid +4\n", "not a decimal number"),
        arguments("bad token: upper case",
            "cryo-lock 1\npid 1\ntoken 5F0C2B8E9D7A41C3B6E2F18A0D9C4E77\n", "token"),
        arguments("bad token: short", "cryo-lock 1\npid 1\ntoken abc\n", "token"),
        arguments("bad start", "cryo-lock 1\npid 1\nstart soon\n", "start"),
        arguments("bad since", "cryo-lock 1\npid 1\nsince yesterday\n", "yesterday"),
        arguments("host with a space", "cryo-lock 1\npid 1\nhost a b\n", "host"),
        arguments("companion with three parts", "cryo-lock 1\npid 1\ncompanion 5 6 7\n", "companion"),
        arguments("companion pid zero", "cryo-lock 1\npid 1\ncompanion 0 5\n", "companion pid"),
        arguments("no magic line", "pid 4242\n", "first line"),
        arguments("other version", "cryo-lock 2\npid 4242\n", "first line"),
        arguments("line without value", "cryo-lock 1\npid 4242\nholder\n", "line 3"),
        arguments("blank line inside", "cryo-lock 1\n\npid 4242\n", "line 2"),
        arguments("carriage returns", "cryo-lock 1\r\npid 4242\r\n", "first line"),
        arguments("a pid and garbage", "4242 oops", "first line"),
        Arguments.of("invalid UTF-8", invalidUtf8, "UTF-8"),
        Arguments.of("larger than " + LockRecord.MAX_BYTES + " bytes", oversize, "larger than"));
  }

  private static Arguments arguments(String why, String content, String problem) {
    return Arguments.of(why, content.getBytes(StandardCharsets.UTF_8), problem);
  }

  @Test
  void aMessageQuotesAtMostABoundedPieceOfTheInput() {
    String key = "k".repeat(3000);
    assertThatThrownBy(() -> LockRecord.parse(("cryo-lock 1\npid 1\n" + key + " v\n")
        .getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(MalformedRecordException.class)
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(100));
  }

  @Test
  void holderControlCharactersCannotForgeAKey() throws Exception {
    String forged = "evil\ntoken " + "0".repeat(32) + "\rpid 1\u0085x\u2028y\u0000z\u007f";
    LockRecord record = new LockRecord(4242, -1, null, null, forged, TOKEN, null, 0, -1);

    assertThat(record.holder()).isEqualTo("evil?token " + "0".repeat(32) + "?pid 1?x?y?z?");
    String text = new String(record.toBytes(), StandardCharsets.UTF_8);
    assertThat(text.lines()).hasSize(4).contains("token " + TOKEN);
    LockRecord read = LockRecord.parse(record.toBytes());
    assertThat(read.token()).isEqualTo(TOKEN);
    assertThat(read.pid()).isEqualTo(4242);
    assertThat(read).isEqualTo(record);
  }

  @Test
  void holderFromAHandEditedFileIsSanitisedToo() throws Exception {
    LockRecord read = LockRecord.parse(
        "cryo-lock 1\npid 3\nholder tab\there\u001b[31m\n".getBytes(StandardCharsets.UTF_8));

    assertThat(read.holder()).isEqualTo("tab?here?[31m");
  }

  @Test
  void holderIsBounded() throws Exception {
    LockRecord record = LockRecord.fresh(ProcessIdentity.current(), "é".repeat(5000));

    assertThat(record.holder()).hasSize(LockRecord.MAX_HOLDER_LENGTH);
    assertThat(record.toBytes().length).isLessThan(LockRecord.MAX_BYTES);
    assertThat(LockRecord.parse(record.toBytes())).isEqualTo(record);
  }

  @Test
  void holderBoundCountsCodePointsAndNeverSplitsASurrogatePair() {
    String emoji = "\uD83D\uDD12"; // one code point, two chars
    LockRecord record = new LockRecord(1, -1, null, null, emoji.repeat(300), null, null, 0, -1);

    assertThat(record.holder().codePointCount(0, record.holder().length()))
        .isEqualTo(LockRecord.MAX_HOLDER_LENGTH);
    assertThat(record.holder()).isEqualTo(emoji.repeat(LockRecord.MAX_HOLDER_LENGTH));
  }

  @Test
  void aLoneSurrogateInTheHolderIsSanitisedSoThatTheFileSaysTheSame() throws Exception {
    LockRecord record = new LockRecord(1, -1, null, null, "a\uD800b\uDC00", null, null, 0, -1);

    assertThat(LockRecord.parse(record.toBytes())).isEqualTo(record);
    assertThat(record.holder()).isEqualTo("a?b?");
  }

  @Test
  void aCompanionWhoseStartIsUnknownRoundTrips() throws Exception {
    LockRecord record = sample().withCompanion(4250, -1);

    assertThat(new String(record.toBytes(), StandardCharsets.UTF_8)).endsWith("companion 4250\n");
    assertThat(LockRecord.parse(record.toBytes())).isEqualTo(record);
  }

  @Test
  void constructorRefusesImpossibleValues() {
    assertThatThrownBy(() -> new LockRecord(0, -1, null, null, null, null, null, 0, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LockRecord(1, -2, null, null, null, null, null, 0, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LockRecord(1, -1, "a b", null, null, null, null, 0, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LockRecord(1, -1, null, "", null, null, null, 0, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LockRecord(1, -1, null, null, null, "xyz", null, 0, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LockRecord(1, -1, null, null, null, null, null, -3, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LockRecord(1, -1, null, null, null, null, null, 0, 7))
        .as("a companion start without a companion could not be written")
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Property(tries = 500)
  void anyRecordRoundTrips(@ForAll("records") LockRecord record) throws Exception {
    byte[] bytes = record.toBytes();

    assertThat(bytes.length).isLessThanOrEqualTo(LockRecord.MAX_BYTES);
    assertThat(LockRecord.parse(bytes)).isEqualTo(record);
    assertThat(record.toBytes()).isEqualTo(bytes);
  }

  @Property(tries = 300)
  void anyHolderNameFitsOnOneLine(@ForAll String holder) throws Exception {
    LockRecord record = new LockRecord(1, -1, null, null, holder, TOKEN, null, 0, -1);
    String text = new String(record.toBytes(), StandardCharsets.UTF_8);

    assertThat(text.split("\n", -1)).hasSize(5);
    assertThat(LockRecord.parse(record.toBytes())).isEqualTo(record);
  }

  @Provide
  Arbitrary<LockRecord> records() {
    Arbitrary<Long> pids = Arbitraries.longs().between(1, Long.MAX_VALUE);
    Arbitrary<Long> starts = Arbitraries.longs().between(-1, Long.MAX_VALUE);
    Arbitrary<String> words = Arbitraries.strings().withCharRange('!', '~').ofMinLength(1)
        .ofMaxLength(255).injectNull(0.2);
    Arbitrary<String> holders = Arbitraries.strings().all().ofMaxLength(400).injectNull(0.2);
    Arbitrary<String> tokens = Arbitraries.strings().withChars("0123456789abcdef")
        .ofLength(32).injectNull(0.2);
    Arbitrary<Instant> sinces = Arbitraries.longs()
        .between(Instant.MIN.getEpochSecond(), Instant.MAX.getEpochSecond())
        .flatMap(seconds -> Arbitraries.integers().between(0, 999_999_999)
            .map(nanos -> Instant.ofEpochSecond(seconds, nanos)))
        .injectNull(0.2);
    Arbitrary<long[]> companions = Arbitraries.oneOf(
        Arbitraries.just(new long[] {0, -1}),
        Combinators.combine(pids, starts).as((pid, start) -> new long[] {pid, start}));
    return Combinators.combine(pids, starts, words, words, holders, tokens, sinces, companions)
        .as((pid, start, boot, host, holder, token, since, companion) -> new LockRecord(
            pid, start, boot, host, holder, token, since, companion[0], companion[1]));
  }

  /**
   * The fast reading of plain records ({@code parsePlain}) must agree with the strict parser on
   * every input: the same record, or a refusal. Plain records, then the same bytes with one byte
   * replaced, inserted or removed (a digit too many, a space, a lost newline, a key misspelt, an
   * impossible date), so that both sides of every check of the fast path are reached.
   */
  @Property(tries = 3000)
  void theFastReadingAgreesWithTheStrictParser(@ForAll("plainRecords") LockRecord record,
      @ForAll("edits") int[] edit) {
    byte[] bytes = edited(record.toBytes(), edit);
    LockRecord strict;
    try {
      strict = LockRecord.parseStrictly(bytes);
    } catch (MalformedRecordException e) {
      assertThatThrownBy(() -> LockRecord.parse(bytes))
          .as("%s", new String(bytes, StandardCharsets.ISO_8859_1))
          .isInstanceOf(MalformedRecordException.class).hasMessage(e.getMessage());
      return;
    }
    assertThat(catching(() -> LockRecord.parse(bytes)))
        .as("%s", new String(bytes, StandardCharsets.ISO_8859_1)).isEqualTo(strict);
  }

  @Test
  void theFastReadingMeetsEachShapeItLeavesToTheStrictParser() throws Exception {
    String head = "cryo-lock 1\npid 42\n";
    // accepted alike
    assertThat(LockRecord.parse(bytes(head + "since 2026-02-28T23:59:59Z\n")).since())
        .isEqualTo(Instant.parse("2026-02-28T23:59:59Z"));
    assertThat(LockRecord.parse(bytes(head + "since 2026-11-29T16:31:05.123456Z\n")).since())
        .isEqualTo(Instant.parse("2026-11-29T16:31:05.123456Z"));
    assertThat(LockRecord.parse(bytes(head + "since 1969-12-31T23:59:59.5Z\n")).since())
        .isEqualTo(Instant.parse("1969-12-31T23:59:59.5Z"));
    assertThat(LockRecord.parse(bytes(head + "holder \u00e9t\u00e9\n")).holder()).isEqualTo("\u00e9t\u00e9");
    assertThat(LockRecord.parse(bytes(head + "since 2026-02-28T24:00:00Z\n")).since())
        .as("the JDK reads the end of a day").isEqualTo(Instant.parse("2026-03-01T00:00:00Z"));
    assertThat(LockRecord.parse(bytes(head + "companion 7\n")).companionPid()).isEqualTo(7);
    assertThat(LockRecord.parse(bytes("cryo-lock 1\npid 42")).pid()).isEqualTo(42);
    // refused alike, with the strict parser's words
    for (String bad : new String[] {head + "since 2026-02-29T00:00:00Z\n",
        head + "pid 43\n", head + "color red\n",
        head + "start -1\n", head + "start 99999999999999999999\n", head + "\n\n",
        "cryo-lock 1\npid 0\n", "cryo-lock 1\npid 9223372036854775808\n",
        head + "companion 7 8 9\n", head + "companion 0\n", head + "host a b\n"}) {
      byte[] content = bytes(bad);
      MalformedRecordException strict = org.junit.jupiter.api.Assertions.assertThrows(
          MalformedRecordException.class, () -> LockRecord.parseStrictly(content), bad);
      assertThatThrownBy(() -> LockRecord.parse(content)).as(bad)
          .isInstanceOf(MalformedRecordException.class).hasMessage(strict.getMessage());
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static LockRecord catching(java.util.concurrent.Callable<LockRecord> parse) {
    try {
      return parse.call();
    } catch (Exception e) {
      throw new AssertionError("the strict parser accepted what parse refused: " + e, e);
    }
  }

  /** {@code bytes} with {@code edit} = {kind, position, byte} applied: 0 none, 1 replace, 2 insert, 3 remove. */
  private static byte[] edited(byte[] bytes, int[] edit) {
    int at = Math.floorMod(edit[1], bytes.length);
    byte value = (byte) edit[2];
    return switch (edit[0]) {
      case 1 -> {
        byte[] copy = bytes.clone();
        copy[at] = value;
        yield copy;
      }
      case 2 -> {
        byte[] copy = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, copy, 0, at);
        copy[at] = value;
        System.arraycopy(bytes, at, copy, at + 1, bytes.length - at);
        yield copy;
      }
      case 3 -> {
        byte[] copy = new byte[bytes.length - 1];
        System.arraycopy(bytes, 0, copy, 0, at);
        System.arraycopy(bytes, at + 1, copy, at, bytes.length - at - 1);
        yield copy;
      }
      default -> bytes;
    };
  }

  @Provide
  Arbitrary<int[]> edits() {
    Arbitrary<Integer> values = Arbitraries.oneOf(Arbitraries.of((int) '\n', (int) ' ', (int) '0',
        (int) '9', (int) 'a', (int) ':', (int) '-', (int) '.', (int) 'Z', (int) 'T', 0x7f, 0xc3,
        0x09), Arbitraries.integers().between(0, 255));
    return Combinators.combine(Arbitraries.integers().between(0, 3),
        Arbitraries.integers().between(0, 1 << 20), values)
        .as((kind, at, value) -> new int[] {kind, at, value});
  }

  @Provide
  Arbitrary<LockRecord> plainRecords() {
    Arbitrary<Long> pids = Arbitraries.oneOf(Arbitraries.longs().between(1, 4_194_304),
        Arbitraries.longs().between(1, Long.MAX_VALUE));
    Arbitrary<Long> starts = Arbitraries.longs().between(-1, 1L << 40);
    Arbitrary<String> words = Arbitraries.strings().withCharRange('!', '~').ofMinLength(1)
        .ofMaxLength(40).injectNull(0.1);
    Arbitrary<String> holders = Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(220)
        .injectNull(0.1);
    Arbitrary<String> tokens = Arbitraries.strings().withChars("0123456789abcdef")
        .ofLength(32).injectNull(0.1);
    Arbitrary<Instant> sinces = Arbitraries.longs().between(0, 253_402_300_799L)
        .flatMap(seconds -> Arbitraries.oneOf(Arbitraries.just(0),
            Arbitraries.integers().between(0, 999).map(millis -> millis * 1_000_000))
            .map(nanos -> Instant.ofEpochSecond(seconds, nanos)))
        .injectNull(0.1);
    Arbitrary<long[]> companions = Arbitraries.oneOf(
        Arbitraries.just(new long[] {0, -1}),
        Combinators.combine(pids, starts).as((pid, start) -> new long[] {pid, start}));
    return Combinators.combine(pids, starts, words, tokens, words, holders, tokens, sinces)
        .flatAs((pid, start, boot, machine, host, holder, token, since) -> companions.map(
            companion -> new LockRecord(pid, start, boot, machine, host, holder, token, since,
                companion[0], companion[1])));
  }
}

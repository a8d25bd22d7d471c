package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The side-file names {@link Publication} reads by hand agree with the regular expression that
 * read them before: {@code (.+)(\.cryo-tmp\.|\.cryo-aside\.)([0-9]{1,19})\.[0-9a-f]{16}}, the pid
 * the third group when it fits a long and is positive, for the target the first group names.
 */
class SideFileNameTest {

  private static final Pattern SIDE_FILE =
      Pattern.compile("(.+)(\\.cryo-tmp\\.|\\.cryo-aside\\.)([0-9]{1,19})\\.[0-9a-f]{16}");

  private static OptionalLong byPattern(String name, String target) {
    Matcher side = SIDE_FILE.matcher(name);
    if (!side.matches() || !side.group(1).equals(target)) {
      return OptionalLong.empty();
    }
    try {
      long pid = Long.parseLong(side.group(3));
      return pid > 0 ? OptionalLong.of(pid) : OptionalLong.empty();
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  @Property(tries = 3000)
  void namesReadAsThePatternReadsThem(@ForAll("names") String name,
      @ForAll("targets") String target) {
    assertThat(Publication.isSideFile(name)).as(name).isEqualTo(SIDE_FILE.matcher(name).matches());
    assertThat(Publication.writerOf(name, target)).as(name + " for " + target)
        .isEqualTo(byPattern(name, target));
  }

  @Test
  void theShapesThatMatter() {
    String hex = "0123456789abcdef";
    assertThat(Publication.writerOf(".lock.cryo-tmp.42." + hex, ".lock")).hasValue(42);
    assertThat(Publication.writerOf(".lock.cryo-aside.7." + hex, ".lock")).hasValue(7);
    assertThat(Publication.writerOf(".lock.cryo-tmp.9999999999999999999." + hex, ".lock"))
        .isEmpty();
    assertThat(Publication.writerOf(".lock.cryo-tmp.0." + hex, ".lock")).isEmpty();
    assertThat(Publication.writerOf(".lock.cryo-tmp.42." + hex, ".loc")).isEmpty();
    assertThat(Publication.writerOf("x.cryo-tmp.1.cryo-tmp.42." + hex, "x.cryo-tmp.1"))
        .hasValue(42);
    assertThat(Publication.isSideFile(".cryo-tmp.42." + hex)).isFalse(); // no target
    assertThat(Publication.isSideFile("a\n.cryo-tmp.42." + hex)).isFalse();
    assertThat(Publication.isSideFile(".lock.cryo-tmp.12345678901234567890." + hex)).isFalse();
    assertThat(Publication.isSideFile(".lock.cryo-tmp.42." + hex.toUpperCase())).isFalse();
  }

  @Provide
  Arbitrary<String> targets() {
    return Arbitraries.of(".lock", ".freezer-lock", "x.cryo-tmp.1", "a", "");
  }

  @Provide
  Arbitrary<String> names() {
    Arbitrary<String> target = Arbitraries.oneOf(targets(),
        Arbitraries.strings().withChars("a.\n-0123456789").ofMaxLength(6));
    Arbitrary<String> mark = Arbitraries.of(".cryo-tmp.", ".cryo-aside.", ".cryo-tmp",
        "cryo-aside.", ".cryo-", "");
    Arbitrary<String> digits = Arbitraries.oneOf(
        Arbitraries.strings().numeric().ofMinLength(0).ofMaxLength(21),
        Arbitraries.of("9223372036854775807", "9223372036854775808", "0", "00012"));
    Arbitrary<String> tail = Arbitraries.oneOf(
        Arbitraries.strings().withChars("0123456789abcdef").ofMinLength(15).ofMaxLength(17)
            .map(hex -> "." + hex),
        Arbitraries.strings().withChars("0123456789abcdefA.").ofMinLength(15).ofMaxLength(18));
    return Combinators.combine(target, mark, digits, tail).as((t, m, d, h) -> t + m + d + h);
  }
}

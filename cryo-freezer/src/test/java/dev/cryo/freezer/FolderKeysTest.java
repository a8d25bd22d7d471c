package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Example;

class FolderKeysTest {

  static final List<String> HOSTILE = List.of("", ".", "..", "../x", "a/b", "/", "\\", "a\u0000b",
      "\u0000", "\n", "\u0007\u001f\u007f", "%", "%25", "+", "~", "Alice", "alice", "ALICE",
      "\uD800", "\uDC00", "\uD800\uDC00", "\uD83D\uDE00", "\uDE00\uD83D", "é", "e\u0301",
      ".lock", "user.parcel", "../mario/../../etc", "anna@example.com", "x".repeat(200), "x".repeat(201), "é".repeat(300),
      "/".repeat(10_000), "\uD800".repeat(1000), "\uD800".repeat(1001));

  static void assertValidName(String key) {
    assertThat(key).isNotEmpty().isNotEqualTo(".").isNotEqualTo("..").doesNotStartWith(".");
    assertThat(key.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(FolderKeys.MAX_KEY_LENGTH);
    assertThat(key).matches("[A-Za-z0-9%_~+-]+");
    assertThat(Path.of(key).getNameCount()).isEqualTo(1);
  }

  @Example
  void hostileIdentitiesGetDistinctValidNamesThatCreateOneFolderInsideTheRoot() throws Exception {
    Path root = Files.createTempDirectory("keys");
    Map<String, String> seen = new HashMap<>();
    for (String identity : HOSTILE) {
      String key = FolderKeys.key(identity);
      assertValidName(key);
      assertThat(seen.put(key, identity)).as("key %s", key).isNull();
      Path folder = Files.createDirectory(root.resolve(key));
      assertThat(folder.getParent()).isEqualTo(root);
    }
    assertThat(FolderKeys.key("Alice")).isNotEqualTo(FolderKeys.key("alice"));
    assertThat(FolderKeys.key("a/b")).isEqualTo("a%2Fb");
    assertThat(FolderKeys.key("anna@example.com")).isEqualTo("anna%40example%2Ecom");
    assertThat(FolderKeys.key("é\uD800")).isEqualTo("%C3%A9%uD800");
    assertThat(FolderKeys.key("..")).isEqualTo("%2E%2E");
    assertThat(FolderKeys.key("x".repeat(201))).contains("+").hasSize(FolderKeys.PREFIX_LENGTH + 65);
  }

  @Example
  void longIdentitiesDifferingOnlyAtTheEndGetDifferentKeys() {
    String base = "u".repeat(5_000);
    assertThat(FolderKeys.key(base + "a")).isNotEqualTo(FolderKeys.key(base + "b"));
    assertThat(FolderKeys.key(base + "\uD800")).isNotEqualTo(FolderKeys.key(base + "\uDBFF"));
  }

  @Property(tries = 3000)
  void keysAreInjectiveAndAlwaysOneValidName(@ForAll("identities") String a, @ForAll("identities") String b) {
    String keyA = FolderKeys.key(a);
    assertValidName(keyA);
    assertThat(keyA).isEqualTo(FolderKeys.key(a));
    if (!a.equals(b)) {
      assertThat(keyA).isNotEqualTo(FolderKeys.key(b));
    }
  }

  /** Undoes the short form (tests only: the freezer never reads an identity back from a name). */
  static String decodeShortKey(String key) {
    if (key.equals("%")) {
      return "";
    }
    StringBuilder identity = new StringBuilder();
    java.io.ByteArrayOutputStream utf8 = new java.io.ByteArrayOutputStream();
    int i = 0;
    while (i < key.length()) {
      if (key.startsWith("%u", i)) {
        identity.append(utf8.toString(StandardCharsets.UTF_8));
        utf8.reset();
        identity.append((char) Integer.parseInt(key.substring(i + 2, i + 6), 16));
        i += 6;
      } else if (key.charAt(i) == '%') {
        utf8.write(Integer.parseInt(key.substring(i + 1, i + 3), 16));
        i += 3;
      } else {
        identity.append(utf8.toString(StandardCharsets.UTF_8));
        utf8.reset();
        identity.append(key.charAt(i));
        i++;
      }
    }
    return identity.append(utf8.toString(StandardCharsets.UTF_8)).toString();
  }

  @Property(tries = 3000)
  void everyShortKeyDecodesBackToItsIdentitySoShortKeysAreInjective(@ForAll("identities") String identity) {
    String key = FolderKeys.key(identity);
    if (key.contains("+")) {
      assertThat(key).hasSize(FolderKeys.PREFIX_LENGTH + 65);
    } else {
      assertThat(decodeShortKey(key)).isEqualTo(identity);
    }
  }

  @Property(tries = 2000)
  void keysOfNearNeighboursDiffer(@ForAll("identities") String a, @ForAll char extra) {
    assertThat(FolderKeys.key(a)).isNotEqualTo(FolderKeys.key(a + extra));
  }

  @Provide
  Arbitrary<String> identities() {
    Arbitrary<String> any = Arbitraries.strings().all().ofMaxLength(120);
    Arbitrary<String> small = Arbitraries.strings().withChars("aA./%+~\u0000\uD800\uDC00é").ofMaxLength(80);
    Arbitrary<String> longOnes = Arbitraries.strings().withChars("ab%é\uD800").ofMinLength(60).ofMaxLength(400);
    return Arbitraries.oneOf(any, small, longOnes);
  }

  @Example
  void aHugeIdentityCostsAboutItsOwnSizeNotThreeTimesIt() {
    String huge = "%".repeat(4_000_000); // every character percent-encoded: three bytes each
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().threadId();
    FolderKeys.key(huge); // warm
    long before = threads.getThreadAllocatedBytes(id);
    String key = FolderKeys.key(huge);
    long allocated = threads.getThreadAllocatedBytes(id) - before;
    assertThat(key).hasSizeLessThanOrEqualTo(FolderKeys.MAX_KEY_LENGTH).contains("+");
    assertThat(allocated).as("bytes allocated for a key of a 4 MB identity")
        .isLessThan(1_000_000);
  }
}

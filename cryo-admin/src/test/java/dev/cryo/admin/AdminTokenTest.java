package dev.cryo.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class AdminTokenTest {

  private static final String SECRET = "s3cret-token-of-24-chars";
  private final AdminToken token = AdminToken.of(SECRET);

  private static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
        .getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theTokenIsProvedByBearerOrByBasicWithAnyUser() {
    assertThat(token.acceptsAuthorization("Bearer " + SECRET)).isTrue();
    assertThat(token.acceptsAuthorization("bearer  " + SECRET + " ")).isTrue();
    assertThat(token.acceptsAuthorization(basic("admin", SECRET))).isTrue();
    assertThat(token.acceptsAuthorization(basic("", SECRET))).isTrue();
  }

  @Test
  void anythingElseProvesNothing() {
    assertThat(token.acceptsAuthorization(null)).isFalse();
    assertThat(token.acceptsAuthorization("")).isFalse();
    assertThat(token.acceptsAuthorization(SECRET)).isFalse(); // no scheme
    assertThat(token.acceptsAuthorization("Bearer " + SECRET + "x")).isFalse();
    assertThat(token.acceptsAuthorization("Bearer " + SECRET.substring(1))).isFalse();
    assertThat(token.acceptsAuthorization("Token " + SECRET)).isFalse();
    assertThat(token.acceptsAuthorization(basic(SECRET, "wrong"))).isFalse(); // user is no password
    assertThat(token.acceptsAuthorization("Basic not*base64")).isFalse();
    assertThat(token.acceptsAuthorization("Basic " + Base64.getEncoder().encodeToString(
        SECRET.getBytes(StandardCharsets.UTF_8)))).isFalse(); // no colon
  }

  @Test
  void aShortOrUnprintableTokenIsRefusedWithoutShowingIt() {
    assertThatThrownBy(() -> AdminToken.of("short-token"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("11 characters").hasMessageNotContaining("short-token");
    assertThatThrownBy(() -> AdminToken.of("has a space in it, twenty+"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("printable ASCII");
    assertThat(AdminToken.of(SECRET).toString()).doesNotContain(SECRET);
  }
}

package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stored field the state class no longer has (renamed without a new state version) is told once
 * per class and field — one warning, counted once — however many users' state it is met in.
 */
class IgnoredStateFieldsTest {

  /** The first version's profile: its name is {@code name}. */
  @StateKey("Profile")
  public record ProfileOne(String name, long visits, Address address) {}

  /** The second version's profile, at the same state version: {@code name} became {@code fullName}. */
  @StateKey("Profile")
  public record ProfileTwo(String fullName, long visits, AddressTwo address) {}

  public record Address(String city, String zip) {}

  /** The rename done right: the new name reads the old one. */
  @StateKey("Profile")
  public record ProfileAliased(@JsonAlias("name") String fullName, long visits,
      Address address) {}

  /** Says it expects unknown fields. */
  @StateKey("Profile")
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ProfileTolerant(long visits) {}

  static final class Aliased implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/profile", call -> call.user(ProfileAliased.class).get());
    }
  }

  static final class Tolerant implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/tolerant", call -> call.user(ProfileTolerant.class).get());
    }
  }

  /** {@code zip} was dropped. */
  public record AddressTwo(String city) {}

  /** A state with a computed property Jackson writes and never reads: not a lost field. */
  public record Cart(List<String> items) {
    public int getTotal() {
      return items.size();
    }
  }

  static final class VersionOne implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/profile", call -> call.user(ProfileOne.class)
          .update(p -> new ProfileOne("Ann " + call.user(), p.visits() + 1,
              new Address("Oslo", "0150"))));
      routes.post("/cart", call -> call.user(Cart.class).update(c -> new Cart(List.of("tea"))));
    }
  }

  static final class VersionTwo implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/profile", call -> call.user(ProfileTwo.class)
          .update(p -> new ProfileTwo(p.fullName(), p.visits() + 1, p.address())));
      routes.post("/cart", call -> call.user(Cart.class).update(c -> new Cart(List.of("tea"))));
    }
  }

  private final List<LogRecord> warnings = new CopyOnWriteArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord record) {
      if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
        warnings.add(record);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final Logger logger = Logger.getLogger(IgnoredStateFields.class.getName());

  @BeforeEach
  void listen() {
    logger.addHandler(capture);
  }

  @AfterEach
  void stop() {
    logger.removeHandler(capture);
  }

  @Test
  void aRenamedFieldIsToldOnceAndCountedOnceHoweverManyUsersReadIt() {
    CryoTestKit kit = CryoTestKit.of(VersionOne::new);
    List<CryoTestKit.Connection> browsers = List.of(kit.connect(), kit.connect(), kit.connect());
    browsers.forEach(browser -> browser.post("/profile"));
    long before = IgnoredStateFields.count();
    assertThat(warnings).as("nothing is ignored while the class has every field").isEmpty();

    kit.upgradeTo(VersionTwo::new); // the same state version: a slip
    for (CryoTestKit.Connection browser : browsers) {
      Response reply = browser.post("/profile");
      assertThat(CryoTestKit.json(reply).get("fullName").isNull()).as("the value was lost")
          .isTrue();
      assertThat(CryoTestKit.json(reply).get("visits").asLong()).isEqualTo(2);
    }

    assertThat(IgnoredStateFields.count() - before)
        .as("ProfileTwo.name and AddressTwo.zip, each once").isEqualTo(2);
    assertThat(warnings).hasSize(2);
    String name = message(warnings.stream()
        .filter(r -> message(r).contains("'name'")).findFirst().orElseThrow());
    assertThat(name).contains("stored state 'Profile'", ProfileTwo.class.getName(),
        "was ignored", "stateVersion()", "upgrade(StoredState)", "old name back",
        "once per class and field");
    assertThat(warnings).anySatisfy(r -> assertThat(message(r))
        .contains("'zip'", AddressTwo.class.getName()));

    browsers.get(0).post("/profile"); // written by the new class now: nothing to ignore
    kit.connect().post("/profile");
    assertThat(IgnoredStateFields.count() - before).isEqualTo(2);
    assertThat(warnings).hasSize(2);
  }

  @Test
  void aPropertyTheClassWritesButDoesNotReadIsNotALostField() {
    CryoTestKit kit = CryoTestKit.of(VersionOne::new).freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();
    long before = IgnoredStateFields.count();
    browser.post("/cart");
    browser.post("/cart");

    assertThat(kit.plainUserState(browser.user(), "Cart")).isInstanceOf(Map.class);
    assertThat(IgnoredStateFields.count()).isEqualTo(before);
    assertThat(warnings).isEmpty();
  }

  @Test
  void aFieldReadUnderAnAliasOrAClassThatIgnoresUnknownFieldsIsNotTold() {
    CryoTestKit kit = CryoTestKit.of(VersionOne::new);
    CryoTestKit.Connection browser = kit.connect();
    browser.post("/profile");
    long before = IgnoredStateFields.count();

    kit.upgradeTo(Aliased::new);
    assertThat(CryoTestKit.json(browser.post("/profile")).get("fullName").asText())
        .startsWith("Ann ");
    kit.upgradeTo(Tolerant::new);
    assertThat(CryoTestKit.json(browser.post("/tolerant")).get("visits").asLong()).isEqualTo(1);

    assertThat(IgnoredStateFields.count()).isEqualTo(before);
    assertThat(warnings).isEmpty();
  }

  private static String message(LogRecord record) {
    return record.getMessage();
  }
}

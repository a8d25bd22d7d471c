package dev.cryo.worker;

import static dev.cryo.worker.AppHostTest.frozen;
import static dev.cryo.worker.AppHostTest.http;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.Response;
import dev.cryo.app.Routes;
import dev.cryo.app.StateKey;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stored field the state class no longer has, met by a worker in the parcels of several users,
 * is counted once, and the worker's photo (which the admin listener exports) says so.
 */
class IgnoredStateFieldsPhotoTest {

  /** Before: the profile's name is {@code name}. */
  public static final class Before implements CryoApplication {
    @StateKey("Profile")
    public record Profile(String name, long visits) {}

    @Override
    public void routes(Routes routes) {
      routes.post("/visit", call -> call.user(Profile.class)
          .update(p -> new Profile("Ann", p.visits() + 1)));
    }
  }

  /** After, at the same state version: {@code name} became {@code fullName}. */
  public static final class After implements CryoApplication {
    @StateKey("Profile")
    public record Profile(String fullName, long visits) {}

    @Override
    public void routes(Routes routes) {
      routes.post("/visit", call -> call.user(Profile.class)
          .update(p -> new Profile(p.fullName(), p.visits() + 1)));
    }
  }

  @TempDir Path temp;
  Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  @Test
  void aFieldIgnoredInManyUsersParcelsIsCountedOnceInThePhoto() {
    Worker before = harness.worker("w1", Before.class);
    for (String connection : new String[] {"c1", "c2", "c3"}) {
      AppHostTest.serve(before, http(null, connection, "POST", "/visit", null));
      before.freezeUser("guest_" + connection).join();
    }
    Worker after = harness.worker("w2", After.class);
    long counted = after.photo().ignoredStateFields();

    for (String connection : new String[] {"c1", "c2", "c3"}) {
      Response reply = AppHostTest.serve(after,
          frozen(http(null, connection, "POST", "/visit", null)));
      assertThat(AppHostTest.json(reply).get("visits").asLong()).isEqualTo(2);
      assertThat(AppHostTest.json(reply).get("fullName").isNull()).isTrue();
    }

    assertThat(after.photo().ignoredStateFields() - counted).isEqualTo(1);
  }
}

package dev.cryo.worker;

import static dev.cryo.worker.AppHostTest.frozen;
import static dev.cryo.worker.AppHostTest.http;
import static dev.cryo.worker.AppHostTest.json;
import static dev.cryo.worker.AppHostTest.serve;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.Routes;
import dev.cryo.app.StateKey;
import dev.cryo.app.StoredState;
import dev.cryo.freezer.ParcelHeader;
import dev.cryo.wire.protocol.RefusalReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker wakes what another version of the application froze: stamps the state version on every
 * parcel, upgrades older state through the application, and leaves what it cannot read in the
 * freezer, untouched, with a note beside it.
 */
class StateVersionWakeTest {

  /** State version 1: a counter {@code n}. */
  public static final class VersionOne implements CryoApplication {
    @StateKey("Counter")
    public record Counter(long n) {}

    @Override
    public void routes(Routes routes) {
      routes.post("/count", call -> call.user(Counter.class).update(c -> new Counter(c.n() + 1)));
    }
  }

  /** State version 2: the counter's field is {@code total}; version 1's {@code n} is upgraded. */
  public static final class VersionTwo implements CryoApplication {
    @StateKey("Counter")
    public record Counter(long total) {}

    @Override
    public void routes(Routes routes) {
      routes.post("/count", call -> call.user(Counter.class)
          .update(c -> new Counter(c.total() + 1)));
    }

    @Override
    public int stateVersion() {
      return 2;
    }

    @Override
    public Object upgrade(StoredState stored) {
      if (stored.key().equals("Counter")) {
        return new Counter(stored.as(VersionOne.Counter.class).n());
      }
      return stored.value();
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

  private Worker worker(String name, Class<? extends CryoApplication> version) {
    return harness.worker(name, version);
  }

  @Test
  void everyParcelCarriesTheStateVersionThatWroteIt() throws Exception {
    Worker w1 = worker("w1", VersionTwo.class);
    serve(w1, http("anna", "c1", "POST", "/count", null));
    assertThat(w1.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);

    Map<?, ?> user = (Map<?, ?>) harness.freezer.readUserParcel("anna").orElseThrow();
    Map<?, ?> connection = (Map<?, ?>) harness.freezer.readConnectionParcel("anna", "c1")
        .orElseThrow();
    assertThat(((Number) user.get(Parcels.STATE_VERSION)).intValue()).isEqualTo(2);
    assertThat(((Number) connection.get(Parcels.STATE_VERSION)).intValue()).isEqualTo(2);
  }

  @Test
  void anOlderStateVersionIsUpgradedAtTheWake() {
    Worker old = worker("w1", VersionOne.class);
    serve(old, http("anna", "c1", "POST", "/count", null));
    serve(old, http("anna", "c1", "POST", "/count", null));
    old.freezeUser("anna").join();

    Worker next = worker("w2", VersionTwo.class);
    dev.cryo.app.Response reply = serve(next, frozen(http("anna", "c1", "POST", "/count",
        null)));

    assertThat(reply.status()).isEqualTo(200);
    assertThat(json(reply).get("total").asLong()).isEqualTo(3);
  }

  @Test
  void aParcelOfANewerStateVersionStaysInTheFreezerWithANote() throws Exception {
    Worker newer = worker("w1", VersionTwo.class);
    serve(newer, http("anna", "c1", "POST", "/count", null));
    newer.freezeUser("anna").join();
    Path userParcel = harness.freezer.folder("anna").resolve("user.parcel");
    byte[] before = Files.readAllBytes(userParcel);

    Worker older = worker("w2", VersionOne.class);
    dev.cryo.app.Response refused = serve(older, frozen(http("anna", "c1", "POST", "/count",
        null)));
    assertThat(refused.status()).isEqualTo(503);
    assertThat(refused.header("Cryo-Reason")).isEqualTo(RefusalReason.UNREADABLE_PARCEL.code());
    assertThat(json(refused).get("message").asText()).contains("kept as it was")
        .doesNotContain("state version", "VersionOne"); // the details are the note's and the log's

    assertThat(Files.readAllBytes(userParcel)).isEqualTo(before); // never dropped, never changed
    assertThat(harness.freezer.readConnectionParcel("anna", "c1")).isPresent();
    ParcelHeader note = harness.freezer.unreadableNoteHeader("anna").orElseThrow();
    assertThat(note.cause()).contains("unreadable", "state version 2", "state version 1");
    assertThat(older.registry().userItems().contains("anna")).isFalse();
    assertThat(harness.freezer.semaphoreHolder("anna")).isEmpty();

    // A version that reads it wakes him whole, and the note goes with the parcels.
    Worker again = worker("w3", VersionTwo.class);
    dev.cryo.app.Response reply = serve(again, frozen(http("anna", "c1", "POST", "/count",
        null)));
    assertThat(json(reply).get("total").asLong()).isEqualTo(2);
    assertThat(harness.freezer.unreadableNoteHeader("anna")).isEmpty();
    // The wake sets aside what it read until his stay writes his own: no later wake reads it.
    assertThat(harness.freezer.readUserParcel("anna")).isEmpty();
    assertThat(harness.freezer.readWokenParcel("anna")).isPresent();
  }
}

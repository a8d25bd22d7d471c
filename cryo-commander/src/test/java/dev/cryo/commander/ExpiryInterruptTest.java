package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.Location.Frozen;
import dev.cryo.freezer.Freezer;
import dev.cryo.wire.protocol.AnnouncementKind;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An expiry round whose thread is interrupted (the commander closing) stops with one line and keeps
 * every user it had not looked at: no warning per frozen user, nobody expired on a guess.
 */
class ExpiryInterruptTest {

  private static final int USERS = 20;

  @TempDir Path temp;
  private final Logger logger = Logger.getLogger(Expiry.class.getName());
  private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord record) {
      logged.add(record);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void listen() {
    logger.addHandler(handler);
  }

  @AfterEach
  void stopListening() {
    logger.removeHandler(handler);
  }

  @Test
  void anInterruptedRoundStopsWithOneLineAndKeepsEverybody() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    Routing routing = new Routing(new RecordingSink());
    long sequence = 0;
    for (int i = 0; i < USERS; i++) {
      String user = "u" + i;
      assertThat(freezer.tryTakeSemaphore(user, "test")).isTrue();
      freezer.writeUserParcel(user, Map.of("n", i), "w1", "test", "g");
      freezer.releaseSemaphore(user, "test");
      routing.fold("w1", new Announcement(++sequence, AnnouncementKind.NEW_USER, user,
          List.of(user), null));
      routing.fold("w1", new Announcement(++sequence, AnnouncementKind.USER_FROZEN, user,
          List.of(user), null));
    }
    // every parcel is past its time: only the interrupt may keep them
    Clock later = Clock.fixed(Instant.now().plus(Duration.ofDays(400)), ZoneOffset.UTC);
    Expiry expiry = new Expiry(routing, freezer, Housekeeping.DEFAULTS, later);

    AtomicReference<List<String>> expired = new AtomicReference<>();
    Thread round = new Thread(() -> {
      Thread.currentThread().interrupt();
      expired.set(expiry.run());
    });
    round.start();
    round.join(20_000);

    assertThat(expired.get()).as("expired by an interrupted round").isEmpty();
    for (int i = 0; i < USERS; i++) {
      assertThat(routing.locate("u" + i)).isInstanceOf(Frozen.class);
      assertThat(freezer.userParcelHeader("u" + i)).isPresent();
    }
    assertThat(logged).as("lines of the interrupted round").hasSize(1);
    assertThat(logged.get(0).getLevel()).isEqualTo(Level.INFO);
    assertThat(logged.get(0).getMessage()).contains("interrupted", "kept");
  }
}

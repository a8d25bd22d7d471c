package dev.cryo.chaos.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerEventFilesTest {

  @Test
  void aRunsEventFilesAreItsPartsHighestNumberFirstThenTheLiveFile(@TempDir Path home)
      throws Exception {
    for (String name : new String[] {"events.jsonl", "events.1.jsonl", "events.10.jsonl",
        "events.2.jsonl", "events.previous.jsonl", "events.previous.1.jsonl", "events.0.jsonl",
        "events.x.jsonl"}) {
      Files.writeString(home.resolve(name), "{}\n");
    }
    assertThat(Server.runEventFiles(home)).extracting(file -> file.getFileName().toString())
        .containsExactly("events.10.jsonl", "events.2.jsonl", "events.1.jsonl", "events.jsonl");
  }

  @Test
  void aWaitForAnEventSeesItAfterTheLogWasRotated(@TempDir Path home) throws Exception {
    Server server = new Server(java.util.List.of("cryo"), home, 1, 2, java.util.List.of(), home);
    Path live = Files.writeString(home.resolve("events.jsonl"),
        "{\"n\":1,\"event\":\"quit_begun\"}\n");
    Server.EventsMark mark = server.eventsMark();
    assertThat(server.eventSince(mark, "quit_begun")).isFalse(); // before the mark
    Files.writeString(live, "{\"n\":2,\"event\":\"fold\"}\n",
        java.nio.file.StandardOpenOption.APPEND);
    Files.move(live, home.resolve("events.1.jsonl")); // rotated: the mark's file is part 1
    Files.writeString(live, "{\"n\":3,\"event\":\"fold\"}\n");
    assertThat(server.eventSince(mark, "quit_begun")).isFalse();
    assertThat(server.eventSince(mark, "fold")).isTrue();
    Files.writeString(live, "{\"n\":4,\"event\":\"quit_begun\"}\n",
        java.nio.file.StandardOpenOption.APPEND);
    assertThat(server.eventSince(mark, "quit_begun")).isTrue();
  }
}

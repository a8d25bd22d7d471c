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
}

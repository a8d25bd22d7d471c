package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thread whose interrupt flag is set takes, re-enters and releases like any other, and its flag is
 * still set afterwards: an interrupt is for the waits, never for the file work (an interruptible
 * channel would close under it, and a release would leave the lock on disk).
 */
class InterruptedThreadTest {

  @TempDir Path dir;

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  private List<String> names(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void anInterruptedThreadReleasesItsLockAndKeepsItsFlag() throws Exception {
    ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "interrupted release");
    Thread.currentThread().interrupt();

    lock.close();

    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(lock.isOpen()).isFalse();
    assertThat(names(dir)).isEmpty();
    Thread.interrupted();
    try (ProcessLock again = ProcessLock.acquire(dir, Duration.ZERO, "after")) {
      assertThat(again.isOpen()).isTrue();
    }
  }

  @Test
  void anInterruptedThreadTakesAFreeLockAndKeepsItsFlag() throws Exception {
    Thread.currentThread().interrupt();

    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ofSeconds(30), "interrupted")) {
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
      assertThat(LockRecord.parse(Files.readAllBytes(lock.lockFile()))).isEqualTo(lock.record());
      assertThat(lock.record().start()).isEqualTo(TestProcesses.startTicks(ProcessHandle.current()
          .pid()));
    }
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(names(dir)).isEmpty();
  }

  @Test
  void anInterruptedThreadReentersItsLockAndKeepsItsFlag() throws Exception {
    ProcessLock outer = ProcessLock.acquire(dir, Duration.ZERO, "outer");
    Thread.currentThread().interrupt();

    ProcessLock inner = ProcessLock.acquire(dir, Duration.ZERO, "inner");
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    inner.close();
    assertThat(Files.exists(outer.lockFile())).isTrue();
    outer.close();

    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(names(dir)).isEmpty();
  }

  @Test
  void anInterruptedThreadTakesAndReleasesASemaphoreAndKeepsItsFlag() throws Exception {
    Path folder = dir.resolve("u-7");
    Thread.currentThread().interrupt();

    assertThat(FolderSemaphore.tryTake(folder, "freeze u-7")).isTrue();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(FolderSemaphore.holder(folder)).isPresent();
    FolderSemaphore.release(folder, "freeze u-7");

    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(folder).doesNotExist();
  }

  @Test
  void anInterruptedThreadReadsALockfile() throws Exception {
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "read me")) {
      Thread.currentThread().interrupt();

      LockReading reading = LockFile.at(lock.lockFile()).read();

      assertThat(Thread.currentThread().isInterrupted()).isTrue();
      assertThat(reading).isInstanceOfSatisfying(LockReading.Present.class,
          present -> assertThat(present.record()).isEqualTo(lock.record()));
      Thread.interrupted();
    }
  }

  @Test
  void anInterruptedThreadPublishesWhole() throws Exception {
    Path target = dir.resolve("published");
    Thread.currentThread().interrupt();

    boolean published = Publication.publishExclusive(target, "whole\n".getBytes(),
        Publication.Durability.DURABLE);

    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(published).isTrue();
    assertThat(target).hasContent("whole");
    assertThat(names(dir)).containsExactly("published");
  }
}

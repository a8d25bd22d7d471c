package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The usual takes and releases of a semaphore throw nothing, not even an exception caught inside
 * the library: a take of a missing folder (every freeze) used to build and drop one in its first
 * look, which a profile of the freeze + adopt cycle put at about 2 % of its time. The exceptions
 * are counted by the runtime's own flight recorder (every {@code Throwable} constructed, with its
 * stack), and only those built by this thread in this library count.
 */
class TakeWithoutExceptionsTest {

  private static final int ROUNDS = 10;

  @TempDir Path parent;

  @Test
  void aFreezeAndAnAdoptionTakeAndReleaseWithoutBuildingAnException() throws Exception {
    SpareFolders spares = new SpareFolders(parent);
    Path folder = parent.resolve("user");
    cycle(folder, spares); // classes loaded and the pool filled outside the recording

    Path dump = parent.resolve("exceptions.jfr");
    try (Recording recording = new Recording()) {
      recording.enable("jdk.JavaExceptionThrow").withStackTrace();
      recording.start();
      for (int i = 0; i < ROUNDS; i++) {
        cycle(folder, spares);
      }
      recording.stop();
      recording.dump(dump);
    }
    long thread = Thread.currentThread().threadId();
    List<String> ours = RecordingFile.readAllEvents(dump).stream()
        .filter(event -> event.getThread() != null && event.getThread().getJavaThreadId() == thread)
        .filter(TakeWithoutExceptionsTest::builtInTheLibrary)
        .map(TakeWithoutExceptionsTest::describe)
        .toList();
    assertThat(ours).as("exceptions built by the takes and releases").isEmpty();
    assertThat(Files.exists(folder)).isFalse();
  }

  /** A freeze (take of the missing folder, release keeping it) then an adoption (take, release). */
  private static void cycle(Path folder, SpareFolders spares) throws LockException {
    SemaphoreHold freeze = FolderSemaphore.take(folder, "freezer", spares);
    assertThat(freeze).isNotNull();
    freeze.release(true, spares);
    SemaphoreHold adopt = FolderSemaphore.take(folder, "adopter", spares);
    assertThat(adopt).isNotNull();
    adopt.release(false, spares);
  }

  private static boolean builtInTheLibrary(RecordedEvent event) {
    if (event.getStackTrace() == null) {
      return false;
    }
    for (RecordedFrame frame : event.getStackTrace().getFrames()) {
      String type = frame.getMethod().getType().getName();
      if (type.startsWith("dev.cryo.lock.") && !type.endsWith("Test")) {
        return true;
      }
    }
    return false;
  }

  private static String describe(RecordedEvent event) {
    StringBuilder text = new StringBuilder(String.valueOf(event.getClass("thrownClass").getName()));
    for (RecordedFrame frame : event.getStackTrace().getFrames()) {
      String type = frame.getMethod().getType().getName();
      text.append(" <- ").append(type).append('.').append(frame.getMethod().getName());
      if (type.startsWith("dev.cryo.lock.")) {
        break; // where the library asked for it: enough to find it
      }
    }
    return text.toString();
  }
}

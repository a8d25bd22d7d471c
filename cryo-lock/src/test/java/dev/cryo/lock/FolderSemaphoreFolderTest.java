package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link FolderSemaphore#tryTake} finds at the folder's path. Only something that is not a
 * directory is refused; a folder that comes and goes with other takers' releases is not (the
 * cross-process tests race that).
 */
class FolderSemaphoreFolderTest {

  @TempDir Path temporary;

  @Test
  void aRegularFileIsRefused() throws Exception {
    Path folder = Files.writeString(temporary.resolve("u-1"), "not a folder");
    assertThatThrownBy(() -> FolderSemaphore.tryTake(folder, "h"))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(LockException.Reason.NOT_A_DIRECTORY));
    assertThat(Files.readString(folder)).isEqualTo("not a folder");
  }

  @Test
  void aDanglingSymbolicLinkIsRefused() throws Exception {
    Path folder = Files.createSymbolicLink(temporary.resolve("u-1"), temporary.resolve("nowhere"));
    assertThatThrownBy(() -> FolderSemaphore.tryTake(folder, "h"))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(LockException.Reason.NOT_A_DIRECTORY));
    assertThat(temporary.resolve("nowhere")).doesNotExist();
  }

  @Test
  void anExistingFolderIsTakenAndAMissingOneMade() throws Exception {
    Path existing = Files.createDirectory(temporary.resolve("u-1"));
    assertThat(FolderSemaphore.tryTake(existing, "h")).isTrue();
    FolderSemaphore.release(existing, "h");
    Path missing = temporary.resolve("users").resolve("u-2");
    assertThat(FolderSemaphore.tryTake(missing, "h")).isTrue();
    assertThat(FolderSemaphore.holder(missing)).get().extracting(LockRecord::holder).isEqualTo("h");
    FolderSemaphore.release(missing, "h");
    assertThat(missing).doesNotExist();
  }
}

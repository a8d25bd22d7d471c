package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * {@link ProcessTable#startOf} keeps the {@code /proc/PID/stat} of the pids it was asked about last
 * open, and reads a process's state through it each time: a process gone since is gone at the next
 * read, as when the file was opened by name every time.
 */
class KeptStatTest {

  private final ProcessTable table = ProcessTable.system();

  @Test
  void aLiveProcessIsReadAgainThroughOneKeptDescriptor() throws Exception {
    Process child = TestProcesses.sleeper();
    try {
      long start = TestProcesses.startTicks(child.pid());
      for (int i = 0; i < 3; i++) {
        assertThat(table.startOf(child.pid())).isEqualTo(OptionalLong.of(start));
      }
      assertThat(descriptorsOf(child.pid())).as("descriptors of /proc/%d/stat", child.pid())
          .isEqualTo(1);
    } finally {
      TestProcesses.reap(child);
    }
  }

  @Test
  void aProcessReapedAfterItWasReadIsGoneAtTheNextReadAndItsDescriptorClosed() throws Exception {
    Process child = TestProcesses.sleeper();
    assertThat(table.startOf(child.pid())).isPresent();
    TestProcesses.reap(child);
    assertThat(table.startOf(child.pid())).isEmpty();
    assertThat(descriptorsOf(child.pid())).isZero();
  }

  @Test
  void moreProcessesThanKeptAreStillEachReadRight() throws Exception {
    List<Process> children = new ArrayList<>();
    try {
      for (int i = 0; i < 12; i++) {
        children.add(TestProcesses.sleeper());
      }
      for (int round = 0; round < 3; round++) {
        for (Process child : children) {
          assertThat(table.startOf(child.pid()))
              .isEqualTo(OptionalLong.of(TestProcesses.startTicks(child.pid())));
        }
      }
      int kept = 0;
      for (Process child : children) {
        kept += descriptorsOf(child.pid());
      }
      assertThat(kept).isBetween(1, 8);
      Process last = children.remove(children.size() - 1);
      TestProcesses.reap(last);
      assertThat(table.startOf(last.pid())).isEmpty();
    } finally {
      children.forEach(TestProcesses::reap);
    }
  }

  /** How many descriptors of this JVM are open on {@code /proc/PID/stat}. */
  private static int descriptorsOf(long pid) throws IOException {
    String target = "/proc/" + pid + "/stat";
    int count = 0;
    try (DirectoryStream<Path> descriptors = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
      for (Path descriptor : descriptors) {
        try {
          if (Files.readSymbolicLink(descriptor).toString().equals(target)) {
            count++;
          }
        } catch (IOException e) {
          // closed meanwhile
        }
      }
    }
    return count;
  }
}

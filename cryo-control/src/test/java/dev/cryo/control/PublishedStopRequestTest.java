package dev.cryo.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.control.StopDelivery.Outcome;
import dev.cryo.lock.PublicationFaults;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stop request whose link succeeded is published, whatever fails after the link: the delivery
 * says "written" (the server acts on it), and what was left behind, never an I/O failure.
 */
class PublishedStopRequestTest {

  @TempDir Path base;

  @Test
  void aRequestWhoseTemporaryCannotBeRemovedIsWrittenAndSaysSo() throws Exception {
    RunDirectory directory = RunDirectory.at(base.resolve("run"));
    RunState run = RunState.begin();
    directory.writeRunState(run);

    StopDelivery delivery;
    try (PublicationFaults faults = PublicationFaults.temporaryCannotBeRemoved()) {
      delivery = directory.requestStop(StopMode.DRAIN);
    }

    assertThat(delivery.outcome()).isEqualTo(Outcome.WRITTEN);
    assertThat(delivery.message()).contains("drain stop requested for invocation "
        + run.invocationId(), "could not be removed",
        directory.path().resolve(StopRequest.FILE_NAME + ".cryo-tmp.").toString())
        .doesNotContain("/proc/self/fd");
    assertThat(directory.readStopRequest().appliesTo(run.invocationId())).isTrue();
  }
}

package dev.cryo.bench.freezer;

import dev.cryo.freezer.Freezer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Where a durable checkpoint of one awake user spends its time in the freezer, step by step, as a
 * worker's durable trip takes them one after another: the semaphore's take, the user parcel's
 * write (a realistic user's store with his connections inside, as a checkpoint writes it), the
 * force of his folder and of the root ({@link Freezer#forceUsers}, what a group commit calls), and
 * the release. p50 and p99 of each, in microseconds, over {@code N} checkpoints (first argument,
 * 2,000 by default), after as many to warm up. The folder stays between checkpoints, as an awake
 * user's does once his first checkpoint made it, unless the second argument is {@code fresh}: then
 * each checkpoint makes its folder anew and drops it after (the root's entries change every time).
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.freezer.DurableCheckpointSteps 2000 [fresh]
 * </pre>
 */
public final class DurableCheckpointSteps {

  private static final String[] STEPS = {"take", "write the checkpoint", "force folder and root",
      "release", "whole"};

  private DurableCheckpointSteps() {}

  /** Prints p50 and p99 of each step. */
  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    boolean fresh = args.length > 1 && args[1].equals("fresh");
    Path root = Files.createTempDirectory("cryo-bench-durable-");
    Freezer freezer = new Freezer(root.resolve("freezer"));
    Map<String, Object> parcel = new java.util.LinkedHashMap<>();
    parcel.put("store", RealisticUser.userStore());
    parcel.put("connection_parcels", RealisticUser.connections());
    String user = "user@example.org";
    for (int round = 1; round <= 2; round++) {
      Histogram[] steps = new Histogram[STEPS.length];
      for (int s = 0; s < steps.length; s++) {
        steps[s] = new Histogram(3);
      }
      for (int i = 0; i < count; i++) {
        long t0 = System.nanoTime();
        if (!freezer.tryTakeSemaphore(user, "bench")) {
          throw new IllegalStateException("the semaphore of " + user + " was not free");
        }
        long t1 = System.nanoTime();
        freezer.writeUserParcel(user, parcel, "bench", "checkpoint", "main");
        long t2 = System.nanoTime();
        freezer.forceUsers(List.of(user));
        long t3 = System.nanoTime();
        if (fresh) {
          freezer.dropUserParcel(user);
        }
        freezer.releaseSemaphore(user, "bench");
        long t4 = System.nanoTime();
        long[] at = {t0, t1, t2, t3, t4};
        for (int s = 0; s < 4; s++) {
          steps[s].recordValue(Math.max(0, (at[s + 1] - at[s]) / 1000));
        }
        steps[4].recordValue(Math.max(0, (t4 - t0) / 1000));
      }
      if (round == 2) {
        System.out.printf("%d durable checkpoints, the folder %s%n", count,
            fresh ? "made anew each time" : "kept between them");
        for (int s = 0; s < STEPS.length; s++) {
          System.out.printf("  %-24s p50 %6d us   p99 %6d us%n", STEPS[s],
              steps[s].getValueAtPercentile(50), steps[s].getValueAtPercentile(99));
        }
      }
    }
    freezer.wipeRoot();
  }
}

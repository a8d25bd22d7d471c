package dev.cryo.bench.freezer;

import dev.cryo.freezer.ParcelCodec;
import dev.cryo.freezer.Freezer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where cryo's freeze + adopt spends its time: the mean wall time of each step over {@code N} users
 * (first argument, 3000 by default), measured twice (the first round warms up), and the codec's share
 * (encode + decode of the three payloads, outside the freezer) beside it.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.freezer.FreezeAdoptSteps 3000
 * </pre>
 */
public final class FreezeAdoptSteps {

  private static final String[] STEPS = {"take (creates the folder)", "write 3 parcels",
      "release (parcels stay)", "take", "read 3 parcels", "drop 3 parcels",
      "release (folder goes)", "codec alone: encode + decode of the 3 payloads"};

  private FreezeAdoptSteps() {}

  /** Prints the mean microseconds of each step. */
  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
    Path root = Files.createTempDirectory("cryo-bench-steps-");
    Freezer freezer = new Freezer(root.resolve("freezer"));
    Object store = RealisticUser.userStore();
    Map<String, ? extends Object> connections = RealisticUser.connections();
    ParcelCodec codec = freezer.codec(); // the codec the freezer writes with (Smile by default)
    String user = "user@example.org";
    for (int round = 1; round <= 2; round++) {
      long[] nanos = new long[STEPS.length];
      for (int i = 0; i < users; i++) {
        long t0 = System.nanoTime();
        check(freezer.tryTakeSemaphore(user, "h"));
        long t1 = System.nanoTime();
        freezer.writeUserParcel(user, store, "h", "freeze", "g");
        for (Map.Entry<String, ? extends Object> c : connections.entrySet()) {
          freezer.writeConnectionParcel(user, c.getKey(), c.getValue(), "h", "freeze", "g");
        }
        long t2 = System.nanoTime();
        freezer.releaseSemaphore(user, "h");
        long t3 = System.nanoTime();
        check(freezer.tryTakeSemaphore(user, "h"));
        long t4 = System.nanoTime();
        check(freezer.readUserParcel(user).isPresent());
        for (String id : connections.keySet()) {
          check(freezer.readConnectionParcel(user, id).isPresent());
        }
        long t5 = System.nanoTime();
        freezer.dropUserParcel(user);
        for (String id : connections.keySet()) {
          freezer.dropConnectionParcel(user, id);
        }
        long t6 = System.nanoTime();
        freezer.releaseSemaphore(user, "h");
        long t7 = System.nanoTime();
        codec.decode(codec.encode(store));
        for (Object c : connections.values()) {
          codec.decode(codec.encode(c));
        }
        long t8 = System.nanoTime();
        long[] marks = {t0, t1, t2, t3, t4, t5, t6, t7, t8};
        for (int s = 0; s < STEPS.length; s++) {
          nanos[s] += marks[s + 1] - marks[s];
        }
      }
      System.out.printf("round %d, %d users:%n", round, users);
      for (int s = 0; s < STEPS.length; s++) {
        System.out.printf("  %-50s %8.1f us%n", STEPS[s], nanos[s] / 1000.0 / users);
      }
    }
    freezer.dropRoot();
    Files.delete(root);
  }

  private static void check(boolean ok) {
    if (!ok) {
      throw new IllegalStateException("a step failed");
    }
  }
}

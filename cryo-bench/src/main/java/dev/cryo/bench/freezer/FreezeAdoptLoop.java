package dev.cryo.bench.freezer;

import dev.cryo.bench.Scratch;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One contender of {@link FreezeAdoptRatios} alone, in a plain loop: what a system-call count
 * ({@code strace -c -f}) or a profiler looks at. It warms up with {@code WARM} users, prints a
 * marker line, then runs {@code USERS} more; the difference between two runs with different
 * {@code USERS} is the count per user, free of the JVM's start.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.freezer.FreezeAdoptLoop
 *     cryo|tomcatFileStore|floor|contractFloor USERS [WARM]
 * </pre>
 */
public final class FreezeAdoptLoop {

  private FreezeAdoptLoop() {}

  /** Runs one contender {@code USERS} times after {@code WARM} (default 2,000) warm-up users. */
  public static void main(String[] args) throws Exception {
    String contender = args[0];
    int users = Integer.parseInt(args[1]);
    int warm = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
    Path root = Files.createTempDirectory("cryo-bench-loop-");
    try {
      CryoFreezeAdopt cryo = new CryoFreezeAdopt(root.resolve("cryo"));
      TomcatFileStoreSwap tomcat = new TomcatFileStoreSwap(root.resolve("tomcat"));
      var session = tomcat.session("0123456789ABCDEF0123456789ABCDEF");
      FileFloor floor = new FileFloor(Files.createDirectory(root.resolve("floor")),
          cryo.parcelBytes());
      ContractFloor contract = new ContractFloor(Files.createDirectory(root.resolve("contract")));
      Runnable one = switch (contender) {
        case "cryo" -> unchecked(() -> cryo.freezeAndAdopt("user@example.org"));
        case "tomcatFileStore" -> unchecked(() -> tomcat.saveLoadRemove(session));
        case "floor" -> unchecked(() -> floor.writeReadRemove("user"));
        case "contractFloor" -> unchecked(() -> contract.freezeAndAdopt("user@example.org"));
        default -> throw new IllegalArgumentException("no contender " + contender);
      };
      for (int i = 0; i < warm; i++) {
        one.run();
      }
      long start = System.nanoTime();
      for (int i = 0; i < users; i++) {
        one.run();
      }
      long took = System.nanoTime() - start;
      System.out.printf("%s: %d users in %.1f ms (%.0f us each)%n", contender, users, took / 1e6,
          users == 0 ? 0.0 : took / 1e3 / users);
    } finally {
      Scratch.delete(root);
    }
  }

  private interface Call {
    Object run() throws Exception;
  }

  private static Runnable unchecked(Call call) {
    return () -> {
      try {
        call.run();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
  }
}

package dev.cryo.bench.freezer;

import dev.cryo.bench.Scratch;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One contender of {@link FreezeAdoptRatios} alone, in a plain loop: what a system-call count
 * ({@code strace -c -f}) or a profiler looks at. It warms up with {@code WARM} users, prints a
 * marker line, then runs {@code USERS} more; the difference between two runs with different
 * {@code USERS} is the count per user, free of the JVM's start. It prints the wall time, the
 * thread's processor time (and its user-mode and kernel parts) and the bytes it allocated, per user.
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
      var threads = (com.sun.management.ThreadMXBean)
          java.lang.management.ManagementFactory.getThreadMXBean();
      long cpu = threads.getCurrentThreadCpuTime();
      long user = threads.getCurrentThreadUserTime();
      long allocated = threads.getCurrentThreadAllocatedBytes();
      long start = System.nanoTime();
      for (int i = 0; i < users; i++) {
        one.run();
      }
      long took = System.nanoTime() - start;
      cpu = threads.getCurrentThreadCpuTime() - cpu;
      user = threads.getCurrentThreadUserTime() - user;
      allocated = threads.getCurrentThreadAllocatedBytes() - allocated;
      // The thread's processor time (user + system) is far steadier than the wall clock on a busy
      // machine: what the loop itself costs, not what it waited for. Its user-mode part is the
      // Java side, the rest the kernel's; the bytes allocated are what the collector is handed.
      double each = Math.max(1, users);
      System.out.printf("%s: %d users in %.1f ms (%.0f us each, %.0f us of processor time each,"
          + " %.0f in user mode, %.0f in the kernel; %.1f KB allocated each)%n",
          contender, users, took / 1e6, took / 1e3 / each, cpu / 1e3 / each, user / 1e3 / each,
          (cpu - user) / 1e3 / each, allocated / 1024.0 / each);
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

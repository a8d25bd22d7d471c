package dev.cryo.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A worker-like main for {@link WorkerJvmTest}: fills its heap, catches the
 * {@link OutOfMemoryError} as a careless thread would, and then stays up for good — unless the JVM
 * ends itself on the error.
 */
public final class OutOfMemoryMain {

  private OutOfMemoryMain() {}

  public static void main(String[] args) throws InterruptedException {
    List<long[]> hoard = new ArrayList<>();
    try {
      while (true) {
        hoard.add(new long[1 << 20]);
      }
    } catch (OutOfMemoryError e) {
      hoard.clear();
      System.out.println("survived an OutOfMemoryError");
    }
    Thread.sleep(Long.MAX_VALUE);
  }
}

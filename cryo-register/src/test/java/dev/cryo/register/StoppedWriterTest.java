package dev.cryo.register;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.Field;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.ModificationWatchpointEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.ModificationWatchpointRequest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * An optimistic reader meets a writer stopped in the middle of a removal from a bin of colliding
 * keys, with real threads of a real JVM: the moment item 19 of issue 12 is about, made to last.
 *
 * <p>A child JVM holds a register indexed on a field whose values all share one hash and are not
 * {@link Comparable}, so the index keeps them in one bin, as a tree searched down both sides. A
 * reader asks for a value that is absent (a search of the whole bin), and is held inside its walk
 * (the value's {@code equals} waits). A writer then drops rows; this test, attached as a debugger,
 * stops it at the one instant of a tree removal where the removed node and its successor have been
 * swapped halfway ({@code p.left = null} in {@code removeTreeNode}: the successor already points
 * back at the node it replaces), in whichever map the index uses. Then the reader walks on.
 *
 * <p>A plain hash map's reader walks that tree while it is torn: round the loop, one call deeper
 * each lap, until its stack overflows (an error, which no optimistic read discards). A concurrent
 * map's reader does not walk a tree under a writer: it ends, finds its stamp overtaken, and waits
 * for the lock; once the writer goes on, it answers. The test asserts that answer: the right one,
 * within a bound, and no failure.
 */
class StoppedWriterTest {

  private static final long BOUND_SECONDS = 60;

  @Test
  void aReaderMeetingAWriterStoppedHalfwayThroughARemovalEndsAndAnswersRight() throws Exception {
    Process child = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xss512k",
        "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0",
        "-cp", System.getProperty("java.class.path"), Child.class.getName())
        .redirectErrorStream(true).start();
    List<String> transcript = new CopyOnWriteArrayList<>();
    Thread pump = new Thread(() -> {
      try (BufferedReader out = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          transcript.add(line);
        }
      } catch (java.io.IOException e) {
        transcript.add("pump failed: " + e);
      }
    }, "child-output");
    pump.setDaemon(true);
    pump.start();
    VirtualMachine vm = null;
    try (Writer toChild = new java.io.OutputStreamWriter(child.getOutputStream(),
        StandardCharsets.UTF_8)) {
      String listening = awaitLine(transcript, "Listening for transport dt_socket at address: ");
      vm = attach(Integer.parseInt(listening.substring(listening.lastIndexOf(' ') + 1).strip()));
      awaitLine(transcript, Child.READER_HELD);
      awaitLine(transcript, Child.WRITER_READY);
      ThreadReference writer = vm.allThreads().stream()
          .filter(thread -> thread.name().equals(Child.WRITER)).findFirst().orElseThrow();
      CountDownLatch stopped = new CountDownLatch(1);
      AtomicReference<EventSet> held = new AtomicReference<>();
      List<ModificationWatchpointRequest> requests = new ArrayList<>();
      for (String map : List.of("java.util.HashMap$TreeNode",
          "java.util.concurrent.ConcurrentHashMap$TreeNode")) {
        for (ReferenceType type : vm.classesByName(map)) {
          Field left = type.fieldByName("left");
          ModificationWatchpointRequest request =
              vm.eventRequestManager().createModificationWatchpointRequest(left);
          request.addThreadFilter(writer);
          request.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
          request.enable();
          requests.add(request);
        }
      }
      assertThat(requests).as("the tree node classes of the maps are loaded").isNotEmpty();
      VirtualMachine debugged = vm;
      Thread events = new Thread(() -> stopHalfway(debugged, stopped, held, requests),
          "debugger-events");
      events.setDaemon(true);
      events.start();

      send(toChild, Child.GO); // the writer drops rows
      boolean halfway = stopped.await(5, TimeUnit.SECONDS); // a concurrent map's writer may
      // wait for the held reader first, and reach the instant only once the reader goes on
      send(toChild, Child.RELEASE); // the reader walks on, into whatever the writer left
      String answer = pollLine(transcript, Child.READER_SAID, 3);
      if (answer == null) {
        // The reader waits (for the lock the stopped writer holds): let the writer go on.
        halfway |= stopped.await(10, TimeUnit.SECONDS);
        EventSet writerStop = held.getAndSet(null);
        if (writerStop != null) {
          writerStop.resume();
        }
        answer = pollLine(transcript, Child.READER_SAID, BOUND_SECONDS);
      } else {
        EventSet writerStop = held.getAndSet(null);
        if (writerStop != null) {
          writerStop.resume();
        }
      }
      assertThat(halfway).as("the writer was stopped halfway through a removal; the child said"
          + " %s", transcript).isTrue();
      assertThat(answer).as("what the reader said; the child said %s", transcript)
          .isEqualTo(Child.READER_SAID + "[]");
      assertThat(pollLine(transcript, Child.WRITER_DONE, BOUND_SECONDS))
          .as("the writer ended: %s", transcript).isNotNull();
      assertThat(child.waitFor(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
      assertThat(child.exitValue()).as("%s", transcript).isZero();
    } finally {
      if (vm != null) {
        try {
          vm.dispose();
        } catch (RuntimeException e) {
          // gone already
        }
      }
      child.destroyForcibly();
    }
  }

  /**
   * Keeps the writer stopped at the first {@code p.left = null} of a {@code removeTreeNode} (the
   * swap halfway), and lets every other modification through; after it, watches nothing more.
   */
  private static void stopHalfway(VirtualMachine vm, CountDownLatch stopped,
      AtomicReference<EventSet> held, List<ModificationWatchpointRequest> requests) {
    try {
      while (true) {
        EventSet set = vm.eventQueue().remove();
        boolean keep = false;
        for (Event event : set) {
          if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent) {
            return;
          }
          if (event instanceof ModificationWatchpointEvent change && stopped.getCount() > 0
              && change.valueToBe() == null
              && change.location().method().name().equals("removeTreeNode")) {
            keep = true;
          }
        }
        if (keep) {
          requests.forEach(EventRequest::disable);
          held.set(set);
          stopped.countDown();
        } else {
          set.resume();
        }
      }
    } catch (InterruptedException | RuntimeException e) {
      // the child went away: the assertions say what was missing
    }
  }

  private static VirtualMachine attach(int port) throws Exception {
    AttachingConnector socket = Bootstrap.virtualMachineManager().attachingConnectors().stream()
        .filter(connector -> connector.name().equals("com.sun.jdi.SocketAttach"))
        .findFirst().orElseThrow();
    Map<String, Connector.Argument> arguments = socket.defaultArguments();
    arguments.get("hostname").setValue("127.0.0.1");
    arguments.get("port").setValue(Integer.toString(port));
    return socket.attach(arguments);
  }

  private static void send(Writer toChild, String line) throws java.io.IOException {
    toChild.write(line + "\n");
    toChild.flush();
  }

  private static String awaitLine(List<String> transcript, String prefix)
      throws InterruptedException {
    String line = pollLine(transcript, prefix, BOUND_SECONDS);
    assertThat(line).as("the child said '%s' within %d s", prefix, BOUND_SECONDS).isNotNull();
    return line;
  }

  /** The first line of the child starting with {@code prefix}, polled for up to {@code seconds}. */
  private static String pollLine(List<String> transcript, String prefix, long seconds)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      for (String line : transcript) {
        if (line.startsWith(prefix)) {
          return line;
        }
      }
      if (System.nanoTime() - deadline > 0) {
        return null;
      }
      Thread.sleep(10); // polls the condition; the deadline bounds it
    }
  }

  /** An index value whose hash every other one shares, and which is not {@link Comparable}. */
  record Tag(int number) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Tag tag && tag.number == number;
    }

    @Override
    public int hashCode() {
      return 7;
    }
  }

  /**
   * A value no row holds, of the tags' hash: a search for it walks the whole bin. Its first
   * comparison holds the reader, inside its optimistic walk, until the child is told to release.
   */
  static final class Probe {
    final CountDownLatch held = new CountDownLatch(1);
    final CountDownLatch released = new CountDownLatch(1);

    @Override
    public boolean equals(Object other) {
      if (held.getCount() > 0) {
        held.countDown();
        try {
          released.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return false;
    }

    @Override
    public int hashCode() {
      return 7;
    }
  }

  /** The child JVM: one register, one held reader, one writer; talks on its standard streams. */
  static final class Child {
    static final String READER_HELD = "reader held";
    static final String WRITER_READY = "writer ready";
    static final String READER_SAID = "reader said ";
    static final String WRITER_DONE = "writer done";
    static final String WRITER = "stopped-writer";
    static final String GO = "go";
    static final String RELEASE = "release";
    private static final int ROWS = 300;

    public static void main(String[] args) throws Exception {
      PrintStream out = System.out;
      Register<Row> register = Register.of("tagged", "tag");
      for (int i = 0; i < ROWS; i++) {
        register.create("r" + i, Map.of("tag", new Tag(i)));
      }
      Probe probe = new Probe();
      Thread reader = new Thread(() -> {
        String said;
        try {
          Set<String> keys = register.keysBy("tag", probe);
          said = keys.toString();
        } catch (Throwable failure) {
          said = "threw " + failure;
        }
        out.println(READER_SAID + said);
      }, "held-reader");
      reader.setDaemon(true);
      reader.start();
      probe.held.await();
      out.println(READER_HELD);
      CountDownLatch go = new CountDownLatch(1);
      Thread writer = new Thread(() -> {
        try {
          go.await();
          for (int i = 0; i < ROWS; i += 3) {
            register.drop("r" + i);
          }
          out.println(WRITER_DONE);
        } catch (Throwable failure) {
          out.println("writer threw " + failure);
        }
      }, WRITER);
      writer.setDaemon(true);
      writer.start();
      out.println(WRITER_READY);
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
          StandardCharsets.UTF_8));
      for (String line; (line = in.readLine()) != null; ) {
        if (line.equals(GO)) {
          go.countDown();
        } else if (line.equals(RELEASE)) {
          probe.released.countDown();
          break; // nothing more to hear
        }
      }
      reader.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
      writer.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
      System.exit(reader.isAlive() || writer.isAlive() ? 1 : 0);
    }
  }
}

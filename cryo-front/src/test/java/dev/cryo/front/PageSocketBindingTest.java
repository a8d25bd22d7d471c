package dev.cryo.front;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.List;
import org.eclipse.jetty.websocket.api.Session;
import org.junit.jupiter.api.Test;

/**
 * A page's binding against a close of its socket on another thread (a slow-reader close, from a
 * push or a call's reply): whatever the order, a closed socket leaves no page bound.
 */
class PageSocketBindingTest {

  private static final long MAX_QUEUED = 256;
  private static final String OPEN_P1 = "{\"id\":1,\"type\":\"open\",\"page\":\"p1\"}";

  private final PageSocketTest.PagesUpstream upstream = new PageSocketTest.PagesUpstream();
  private final PageSockets registry = new PageSockets();

  PageSocketBindingTest() {
    upstream.pageConnection.put("p1", "c1");
  }

  /** A socket of connection c1 on a session that is open and takes every write. */
  private PageSocket openSocket() {
    PageSocket socket = new PageSocket("c1", List.of(), registry, upstream,
        new SocketLimits(256, 16, MAX_QUEUED), new BodyBudget(1 << 20));
    socket.onWebSocketOpen(openSession());
    return socket;
  }

  private static Session openSession() {
    return (Session) Proxy.newProxyInstance(Session.class.getClassLoader(),
        new Class<?>[] {Session.class},
        (proxy, method, args) -> method.getName().equals("isOpen") ? Boolean.TRUE : null);
  }

  /** What a push too long for the queue does: the socket is closed as a slow reader. */
  private static void closeAsSlowReader(PageSocket socket) {
    assertThat(socket.send("x".repeat((int) MAX_QUEUED + 1))).isFalse();
  }

  /**
   * A soak's finding: a login retired the cookie while the socket had no page bound yet; it was
   * not found, bound a page after, and its calls met the retired cookie for good. Every socket of
   * the connection is retired, bound or not: it binds nothing afterwards.
   */
  @Test
  void aRetiredCookiesSocketWithoutAPageYetBindsNoneAfter() {
    PageSocket socket = openSocket();
    registry.retire("c1", "the-login's-credential");
    socket.onWebSocketText(OPEN_P1);
    assertThat(registry.socketsOf("p1")).as("sockets bound to p1").isZero();
    assertThat(registry.anyBound()).isFalse();
  }

  @Test
  void anOpenedPageIsBoundUntilItsSocketCloses() {
    PageSocket socket = openSocket();
    socket.onWebSocketText(OPEN_P1);
    assertThat(registry.socketsOf("p1")).isEqualTo(1);
    assertThat(registry.anyBound()).isTrue();
    closeAsSlowReader(socket);
    assertThat(registry.socketsOf("p1")).isZero();
    assertThat(registry.anyBound()).isFalse();
  }

  /**
   * The review's finding: the close runs on another thread after the page joined the socket's
   * pages and before the registry bound it. Its unbind found nothing to unbind, the bind came
   * after, and {@code anyBound()} stayed true for ever.
   */
  @Test
  void aSlowReaderCloseBetweenAddingAPageAndBindingItLeavesNothingBound() {
    PageSocket socket = openSocket();
    socket.beforeBind(page -> {
      Thread closer = Thread.ofPlatform().name("slow-reader-close")
          .start(() -> closeAsSlowReader(socket));
      try {
        assertThat(closer.join(PageSocketTest.PATIENCE)).as("the close ended").isTrue();
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    });
    socket.onWebSocketText(OPEN_P1);
    assertThat(registry.slowReadersClosed()).isEqualTo(1);
    assertThat(registry.open()).isZero();
    assertThat(registry.socketsOf("p1")).as("sockets bound to p1").isZero();
    assertThat(registry.anyBound()).as("any page bound").isFalse();
    assertThat(registry.deliver("c1", "p1", "1".getBytes())).isFalse();
  }

  /** A socket closed before its open is read (its close ran first, on a push's thread). */
  @Test
  void anOpenReadAfterTheSocketClosedBindsNothing() {
    PageSocket socket = openSocket();
    closeAsSlowReader(socket);
    socket.onWebSocketText(OPEN_P1);
    assertThat(registry.socketsOf("p1")).as("sockets bound to p1").isZero();
    assertThat(registry.anyBound()).as("any page bound").isFalse();
  }

  /**
   * Two tabs of one page: one closes on its thread while the other opens the page on another. The
   * close empties the page's set of sockets and drops it; the open must not add its socket to the
   * dropped set, where no push would find it and {@code anyBound()} would say false.
   */
  @Test
  void aPageOpenedWhileItsOtherSocketClosesStaysBound() throws InterruptedException {
    PageSocket leaving = openSocket();
    leaving.onWebSocketText(OPEN_P1);
    PageSocket staying = openSocket();
    Thread closer = Thread.ofPlatform().name("tab-close").unstarted(
        () -> leaving.onWebSocketClose(1001, "going away"));
    registry.whileBinding(page -> {
      closer.start();
      awaitEndedOrBlocked(closer);
    });
    staying.onWebSocketText(OPEN_P1);
    registry.whileBinding(page -> { });
    assertThat(closer.join(PageSocketTest.PATIENCE)).as("the close ended").isTrue();
    assertThat(registry.open()).isEqualTo(1);
    assertThat(registry.socketsOf("p1")).as("sockets bound to p1").isEqualTo(1);
    assertThat(registry.anyBound()).as("any page bound").isTrue();
    assertThat(registry.deliver("c1", "p1", "1".getBytes())).isTrue();
  }

  /**
   * Waits until {@code thread} ended or waits for a monitor: with the bind atomic, the close waits
   * for the page's entry, which the bind holds; without, it runs through. (Were the close ever
   * caught waiting for some other monitor, the test could only pass where it should fail, never
   * the other way round.)
   */
  private static void awaitEndedOrBlocked(Thread thread) {
    long deadline = System.nanoTime() + PageSocketTest.PATIENCE.toNanos();
    while (thread.getState() != Thread.State.TERMINATED
        && thread.getState() != Thread.State.BLOCKED) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the close neither ended nor waited for the bind; it is "
            + thread.getState());
      }
      Thread.onSpinWait();
    }
  }
}

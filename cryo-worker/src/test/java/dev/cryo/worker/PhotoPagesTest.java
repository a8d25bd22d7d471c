package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.wire.Wire;
import dev.cryo.wire.WireHandler;
import dev.cryo.wire.WireLimits;
import dev.cryo.wire.WireListener;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.PhotoMessage;
import dev.cryo.wire.protocol.PhotoRequest;
import dev.cryo.wire.protocol.ProtocolCodec;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Over a real wire whose frames are small (64 KiB), a worker holding more users than one photo of
 * them all could carry (about 150 bytes each: 3,000 users are several frames' worth) answers every
 * ping with a page of its photo that fits a frame; the pages, asked for one after the other, list
 * every user exactly once, each within its page's range, and every page tells the whole worker's
 * counts.
 */
class PhotoPagesTest {

  private static final WireLimits SMALL = new WireLimits(64 * 1024, 16 * 1024, 256, 256);
  private static final int USERS = 3_000;

  @TempDir Path temp;
  private Harness harness;
  private Worker worker;
  private WireListener listener;
  private Wire workerSide;
  private Wire commanderSide;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    worker = harness.worker("w1");
    WireEndpoint endpoint = new WireEndpoint(() -> {}, SMALL.maxFrameBytes());
    listener = WireListener.bind(temp.resolve("w.sock"));
    CompletableFuture<SocketChannel> accepted = CompletableFuture.supplyAsync(() -> {
      try {
        return listener.accept(Duration.ofSeconds(10));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    workerSide = Wire.open(Wire.connect(temp.resolve("w.sock")), "w1", endpoint,
        Methods.WORKER_CALLS, Methods.WORKER_EVENTS, SMALL);
    endpoint.bind(worker, workerSide);
    commanderSide = Wire.open(accepted.get(10, TimeUnit.SECONDS), "commander", new WireHandler() {
      @Override
      public byte[] onCall(String method, byte[] payload) {
        return new byte[0];
      }

      @Override
      public void onEvent(String method, byte[] payload) {}

      @Override
      public void onClosed(String reason) {}
    }, Methods.COMMANDER_CALLS, Methods.COMMANDER_EVENTS, SMALL);
  }

  @AfterEach
  void tearDown() {
    commanderSide.close();
    workerSide.close();
    listener.close();
    harness.close();
  }

  @Test
  void everyPingIsAnsweredWithAPageThatFitsAFrameAndThePagesListEveryUserOnce()
      throws Exception {
    Set<String> everyone = new HashSet<>();
    for (int i = 0; i < USERS; i++) {
      String user = "user-" + i;
      Harness.call(worker, increment(user, "c" + i, "p" + i, "page"));
      everyone.add(user);
    }

    Set<String> seen = new HashSet<>();
    int listed = 0;
    int pages = 0;
    String after = null;
    do {
      byte[] reply = commanderSide.call(Methods.PING,
          ProtocolCodec.write(new PhotoRequest(after)), Duration.ofSeconds(30)).get();
      PhotoMessage page = ProtocolCodec.read(reply, PhotoMessage.class);
      pages++;
      assertThat(reply.length).as("page %d's bytes", pages).isLessThan(SMALL.maxFrameBytes());
      assertThat(page.userCount()).as("the whole worker's count").isEqualTo(USERS);
      assertThat(page.connectionCount()).isEqualTo(USERS);
      assertThat(page.usersAfter()).isEqualTo(after);
      assertThat(page.users()).as("page %d", pages).isNotEmpty();
      assertThat(page.users().keySet()).allMatch(page::covers);
      assertThat(everyone.stream().filter(page::covers))
          .as("every user in the page's range is listed")
          .containsExactlyInAnyOrderElementsOf(page.users().keySet());
      listed += page.users().size();
      seen.addAll(page.users().keySet());
      after = page.usersThrough();
    } while (after != null && pages < USERS);

    assertThat(pages).as("pages for %d users in frames of 64 KiB", USERS).isGreaterThan(2);
    assertThat(listed).as("users listed, over all pages").isEqualTo(USERS);
    assertThat(seen).isEqualTo(everyone);
  }
}

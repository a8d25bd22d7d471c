package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order of a quit's freezes over the real worker serving the demo: a request of a user held
 * because his worker quits has his user frozen before most of the worker's other users, whatever
 * the worker's own departure order, so it waits for his freeze, not for the whole quit. The users
 * asked for are the last of the worker's tenant map (the order its departure loop walks), computed
 * the same way; each sends request after request from before the quit, so that one finds his hold
 * however fast the worker freezes. The order is read from the event log's {@code user_frozen} folds, not from a time.
 */
@Timeout(300)
class QuitOrderTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int USERS = 2000;
  private static final int ASKED = 5;

  @TempDir
  Path home;

  @Test
  void aHeldRequestsUserIsFrozenBeforeMostOfTheQuittingWorkersUsers() throws Exception {
    try (Commander commander = Commander.start(CommanderConfig.builder(home,
        "dev.cryo.demo.DemoApplication").workers(2).workerHeapBytes(256L * 1024 * 1024)
        .hold(Duration.ofSeconds(120)) // a loaded machine: the order is asserted, not the time
        .build())) {
      assertThat(eventually(Duration.ofSeconds(120), () -> running(commander) == 2)).isTrue();
      Map<String, String[]> tabs = new ConcurrentHashMap<>(); // user -> {connection, page, worker}
      try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
        List<Future<?>> made = new ArrayList<>();
        for (int i = 0; i < USERS; i++) {
          String connection = "q" + i;
          made.add(pool.submit(() -> {
            String page = call(commander, connection, "/api/pages", null).path("page").asText();
            JsonNode counted = call(commander, connection, "/api/counter", Map.of("page", page));
            tabs.put(counted.path("user").asText(),
                new String[] {connection, page, counted.path("worker").asText()});
            return null;
          }));
        }
        for (Future<?> future : made) {
          future.get();
        }
      }
      String quitting = commander.status().workers().stream()
          .max((a, b) -> Integer.compare(a.users(), b.users())).orElseThrow().name();
      ConcurrentHashMap<String, Boolean> order = new ConcurrentHashMap<>(); // the worker's map
      tabs.forEach((user, tab) -> {
        if (tab[2].equals(quitting)) {
          order.put(user, true);
        }
      });
      assertThat(order).hasSizeGreaterThan(USERS / 2);
      List<String> walk = new ArrayList<>(order.keySet());
      List<String> asked = walk.subList(walk.size() - ASKED, walk.size());

      // Each asked user sends request after request from before the quit: the first sent once his
      // hold stands finds it, however fast the worker freezes.
      AtomicBoolean sending = new AtomicBoolean(true);
      Set<String> waited = ConcurrentHashMap.newKeySet();
      commander.addListener(new RunListener() {
        @Override
        public void heldWait(String user, boolean released, long nanos) {
          waited.add(user);
        }
      });
      List<List<JsonNode>> replies = new ArrayList<>();
      List<CompletableFuture<Void>> loads = new ArrayList<>();
      ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor();
      for (String user : asked) {
        String[] tab = tabs.get(user);
        List<JsonNode> his = new CopyOnWriteArrayList<>();
        replies.add(his);
        loads.add(CompletableFuture.runAsync(() -> {
          try {
            while (sending.get()) {
              his.add(call(commander, tab[0], "/api/counter", Map.of("page", tab[1])));
            }
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }, senders));
      }
      assertThat(eventually(Duration.ofSeconds(60), () -> replies.stream()
          .noneMatch(List::isEmpty))).isTrue();
      QuitOutcome outcome = commander.quitWorker(quitting, Duration.ofSeconds(30));
      sending.set(false);
      for (CompletableFuture<Void> load : loads) {
        load.get(120, TimeUnit.SECONDS);
      }
      senders.close();
      assertThat(waited).as("each asked user's request waited for his hold").containsAll(asked);
      for (int i = 0; i < ASKED; i++) {
        List<JsonNode> his = replies.get(i);
        for (int j = 0; j < his.size(); j++) { // each counted once, nothing lost
          assertThat(his.get(j).path("user").asText()).isEqualTo(asked.get(i));
          assertThat(his.get(j).path("counter").asInt()).isEqualTo(j + 2);
        }
        assertThat(his.get(his.size() - 1).path("worker").asText()).isNotEqualTo(quitting);
      }
      assertThat(outcome.quit()).as(outcome.message()).isTrue();
      assertThat(outcome.lost()).isEmpty();

      List<String> frozen = new ArrayList<>();
      for (JsonNode fold : events(commander, "fold")) {
        if (fold.path("kind").asText().equals("user_frozen")
            && fold.path("worker").asText().equals(quitting)) {
          frozen.add(fold.path("user").asText());
        }
      }
      assertThat(frozen).hasSize(order.size()).containsAll(asked);
      for (String user : asked) {
        assertThat(frozen.indexOf(user)).as("the place of %s's freeze among the quit's %d",
            user, frozen.size()).isLessThan(frozen.size() / 4);
      }
      assertThat(commander.status().anomalies()).isZero();
    }
  }

  private static JsonNode call(Commander commander, String connection, String path, Object body)
      throws Exception {
    byte[] bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    List<Map.Entry<String, String>> headers = body == null ? List.of()
        : List.of(Map.entry("Content-Type", "application/json"));
    Reply reply = commander.serve(new Request(connection, "POST", path, "", headers, bytes));
    assertThat(reply.status()).as("POST %s: %s", path, reply.bodyText()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }

  private static long running(Commander commander) {
    return commander.status().workers().stream()
        .filter(w -> w.state() == WorkerState.RUNNING).count();
  }
}

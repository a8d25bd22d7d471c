package dev.cryo.chaos.check;

import static dev.cryo.chaos.history.Function.INC;
import static dev.cryo.chaos.history.Function.LOGIN;
import static dev.cryo.chaos.history.Function.READ;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.chaos.check.SimulatedRun.Call;
import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.FaultKind;
import dev.cryo.chaos.history.Function;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The checker on scripted histories: a correct run passes, and each anomaly planted once into it
 * fails with exactly its kind.
 */
class CheckerTest {

  private static Verdict check(List<Entry> history, SimulatedRun run) {
    return Checker.check(history, run.eventLog(), Checker.DEFAULT_GRACE);
  }

  private static void assertOnly(Verdict verdict, AnomalyKind kind) {
    assertThat(verdict.valid()).as(verdict.text()).isFalse();
    assertThat(verdict.kinds()).as(verdict.text()).containsExactly(kind);
  }

  @Test
  void aCorrectRunPasses() {
    Scenario scenario = new Scenario();
    Verdict verdict = scenario.run.check();
    assertThat(verdict.valid()).as(verdict.text()).isTrue();
    assertThat(verdict.text()).startsWith("VALID");
    assertThat(verdict.documentedLosses()).isEqualTo(1);
    assertThat(verdict.operations().get("inc")).containsEntry("fail", 2L).containsEntry("info",
        1L);
    assertThat(verdict.operations().get("move")).containsEntry("ok", 1L).containsEntry("fail",
        1L);
    assertThat(verdict.faults()).containsOnlyKeys("kill_worker");
  }

  @Test
  void twoIncrementsReturningOneValueAreTwoLiveCopies() {
    Scenario scenario = new Scenario();
    long value = scenario.concurrentFirst.counter;
    List<Entry> planted = Entries.withCompletion(scenario.run.history(),
        scenario.concurrentSecond.op, "counter", value);
    Verdict verdict = check(planted, scenario.run);
    assertOnly(verdict, AnomalyKind.TWO_LIVE_COPIES);
    assertThat(verdict.examples(AnomalyKind.TWO_LIVE_COPIES).get(0).explanation())
        .contains("returned counter " + value);
  }

  @Test
  void anIncrementNoHigherThanAnEarlierReadIsTwoLiveCopies() {
    Scenario scenario = new Scenario();
    List<Entry> planted = Entries.withCompletion(scenario.run.history(),
        scenario.incrementAfterRead.op, "counter", scenario.readBeforeIncrement.counter);
    Verdict verdict = check(planted, scenario.run);
    assertOnly(verdict, AnomalyKind.TWO_LIVE_COPIES);
    assertThat(verdict.examples(AnomalyKind.TWO_LIVE_COPIES).get(0).operations())
        .contains(scenario.incrementAfterRead.op);
  }

  @Test
  void anIncrementReturningTheValueALoginShowedIsTwoLiveCopies() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("d", "d1");
    for (int i = 0; i < 5; i++) {
      run.run("d", "d1", INC, page, null);
    }
    Call login = run.run("d", "d1", LOGIN, page, "dora"); // dora is born with 5: no inc of hers
    Call increment = run.run("d", "d1", INC, page, null);
    run.run("d", "d1", READ, page, null);
    assertThat(login.counter).isEqualTo(5);
    List<Entry> planted = Entries.withCompletion(run.history(), increment.op, "counter", 5);
    assertOnly(check(planted, run), AnomalyKind.TWO_LIVE_COPIES);
  }

  @Test
  void aStaleReadFollowedByAHigherOneIsTimeTravel() {
    Scenario scenario = new Scenario();
    List<Entry> planted = Entries.withCompletion(scenario.run.history(),
        scenario.middleRead.op, "counter", scenario.incrementAfterRead.counter - 1);
    Verdict verdict = check(planted, scenario.run);
    assertOnly(verdict, AnomalyKind.TIME_TRAVEL);
    assertThat(verdict.examples(AnomalyKind.TIME_TRAVEL).get(0).register()).isEqualTo("anna");
  }

  @Test
  void aFinalReadBelowAnAckedIncrementIsALostWrite() {
    Scenario scenario = new Scenario();
    List<Entry> planted = Entries.withCompletion(scenario.run.history(),
        scenario.lastReadOfAnna.op, "counter", scenario.lastReadOfAnna.counter - 1);
    Verdict verdict = check(planted, scenario.run);
    assertOnly(verdict, AnomalyKind.LOST_WRITE);
    assertThat(verdict.examples(AnomalyKind.LOST_WRITE).get(0).explanation())
        .contains("last observation");
  }

  @Test
  void theCountFromFirstToLastObservationCatchesAnIncrementWithoutValue() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("d", "d1");
    for (int i = 0; i < 5; i++) {
      run.run("d", "d1", INC, page, null);
    }
    run.run("d", "d1", LOGIN, page, "dora"); // dora starts at 5: her first observation
    Call increment = run.run("d", "d1", INC, page, null);
    Call last = run.run("d", "d1", READ, page, null);
    assertThat(run.check().valid()).isTrue();
    List<Entry> planted = Entries.withCompletion(run.history(), increment.op, "counter", null);
    assertThat(check(planted, run).valid()).isTrue(); // a reply without the value is no anomaly
    planted = Entries.withCompletion(planted, last.op, "counter", 5);
    Verdict verdict = check(planted, run);
    assertOnly(verdict, AnomalyKind.LOST_WRITE);
    assertThat(verdict.examples(AnomalyKind.LOST_WRITE).get(0).explanation())
        .contains("1 acked increments were invoked after the first");
  }

  @Test
  void aVirtualUserWhoseConnectionIsForgottenIsALostWrite() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("v", "v1");
    run.run("v", "v1", INC, page, null);
    String guest = run.userNow("v");
    run.forgetUser(guest); // no event says so
    String newPage = run.openPage("v", "v1");
    Call after = run.run("v", "v1", INC, newPage, null);
    assertThat(after.user).isNotEqualTo(guest);
    Verdict verdict = run.check();
    assertOnly(verdict, AnomalyKind.LOST_WRITE);
    assertThat(verdict.examples(AnomalyKind.LOST_WRITE).get(0).explanation())
        .contains("connection was forgotten");
  }

  @Test
  void aLoginInFlightToAThirdNameDoesNotExcuseAForgottenConnection() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("v", "v1");
    run.run("v", "v1", INC, page, null);
    Call login = run.invoke("v", "v2", LOGIN, null, "anna");
    run.advance(1);
    run.forgetUser(run.userNow("v")); // no event says so
    Call after = run.run("v", "v1", READ, null, null); // a new guest
    run.apply(login);
    run.advance(1);
    run.complete(login);
    assertThat(after.user).startsWith("guest_");
    Verdict verdict = run.check();
    assertOnly(verdict, AnomalyKind.LOST_WRITE);
    assertThat(verdict.examples(AnomalyKind.LOST_WRITE).get(0).operations())
        .contains(after.op);
  }

  /**
   * After an acked increment on {@code page}, a login of {@code v} whose reply never came, then
   * the connection forgotten (the retired cookie, past the grace); returns the login.
   */
  private static Call unansweredLoginForgetting(SimulatedRun run, String page) {
    run.run("v", "v1", INC, page, null);
    Call login = run.invoke("v", "v2", LOGIN, null, "anna");
    run.advance(1);
    run.info(login, "HttpTimeoutException");
    run.advance(1);
    run.forgetUser(run.userNow("v"));
    return login;
  }

  /**
   * A login whose reply never came rotated the connection's cookie (the new one was in the lost
   * reply): the client's next requests, after the grace, are a new guest's. Documented, not a loss.
   */
  @Test
  void aLoginWhoseReplyNeverCameExcusesAForgottenConnection() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("v", "v1");
    unansweredLoginForgetting(run, page);
    Call after = run.run("v", "v1", READ, null, null); // a new guest
    assertThat(after.user).startsWith("guest_");
    Verdict verdict = run.check(); // the login's own unknown end is another check's
    assertThat(verdict.examples(AnomalyKind.LOST_WRITE)).isEmpty();
  }

  /**
   * The same login whose reply never came: the pages of the connection it retired are gone with
   * it after the grace, and their {@code 404 unknown_page} is documented, not a loss nor a failure.
   * A page first named after that login is not excused.
   */
  @Test
  void aLoginWhoseReplyNeverCameExcusesThePagesOfTheConnectionItRetired() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("v", "v1");
    Call login = unansweredLoginForgetting(run, page);
    Call refused = run.run("v", "v1", INC, page, null);
    assertThat(refused.refusalError).isEqualTo("unknown_page");
    Verdict verdict = run.check();
    assertThat(verdict.examples(AnomalyKind.LOST_WRITE)).isEmpty();
    assertThat(verdict.examples(AnomalyKind.UNEXPLAINED_FAILURE)) // the login's own unknown end
        .singleElement().extracting(Anomaly::operations).isEqualTo(List.of(login.op));

    String later = run.openPage("v", "v1"); // named after the login: no excuse
    run.run("v", "v1", INC, later, null);
    run.forgetUser(run.userNow("v"));
    Call unexcused = run.run("v", "v1", INC, later, null);
    assertThat(run.check().examples(AnomalyKind.UNEXPLAINED_FAILURE))
        .anySatisfy(anomaly -> assertThat(anomaly.operations()).contains(unexcused.op));
  }

  /**
   * Notes are written on a durable route: a user {@code restored} from his checkpoint keeps every
   * acknowledged note (a note missing after it is a {@link AnomalyKind#LOST_WRITE}), while a user
   * {@code lost} outright ends the page's epoch as before.
   */
  @Test
  void aRestoreFromACheckpointKeepsEveryAcknowledgedNoteALossDoesNot() {
    for (String field : List.of("restored", "lost")) {
      SimulatedRun run = new SimulatedRun();
      String page = run.openPage("v", "v1");
      run.run("v", "v1", INC, page, null); // names his user
      run.note("v", "v1", page);
      run.note("v", "v1", page);
      run.advance(1);
      run.event("worker_died", Map.of("worker", "w1", "reason", "killed", field,
          List.of(run.userNow("v"))));
      run.dropNewestNote(page);
      run.run("v", "v1", READ, page, null);
      Verdict verdict = run.check();
      if (field.equals("restored")) {
        assertOnly(verdict, AnomalyKind.LOST_WRITE);
      } else {
        assertThat(verdict.valid()).as(verdict.toString()).isTrue();
      }
    }
  }

  @Test
  void aReplyOnAConnectionTheClientDroppedIsNoSwitch() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("v", "v1");
    run.run("v", "v1", INC, page, null);
    Call stray = run.run("v", "v2", READ, null, null);
    run.run("v", "v1", INC, page, null);
    List<Entry> planted = Entries.withCompletion(run.history(), stray.op, "user", "guest_v_9");
    assertOnly(check(planted, run), AnomalyKind.LOST_WRITE);
    planted = Entries.withCompletion(planted, stray.op, "cookie", Entry.COOKIE_DROPPED);
    assertThat(check(planted, run).valid()).isTrue();
  }

  @Test
  void aForgottenConnectionWithoutWritesLosesNothing() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("v", "v1");
    run.run("v", "v1", READ, page, null);
    run.forgetUser(run.userNow("v"));
    run.run("v", "v1", READ, run.openPage("v", "v1"), null);
    assertThat(run.check().valid()).isTrue();
  }

  @Test
  void aLoginTheClientGaveUpOnMayActLater() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("c", "c1");
    run.run("c", "c1", LOGIN, page, "bob");
    for (int i = 0; i < 3; i++) {
      run.run("c", "c1", INC, page, null);
    }
    long fault = run.faultStart(FaultKind.PAUSE_WORKER, "w1");
    Call login = run.invoke("c", "c1", LOGIN, page, "carl");
    run.advance(30);
    run.info(login, "java.net.http.HttpTimeoutException"); // the client gives up...
    run.advance(20);
    run.run("c", "c1", INC, page, null); // still bob
    run.advance(20);
    run.apply(login); // ...the held request is done later: bob, left with no connection, drops
    run.faultEnd(fault, FaultKind.PAUSE_WORKER);
    run.advance(10);
    Call after = run.run("c", "c1", INC, page, null);
    assertThat(after.user).isEqualTo("carl");
    String other = run.openPage("d", "d1");
    Call fresh = run.run("d", "d1", LOGIN, other, "bob"); // bob afresh, from d's guest: 0
    run.run("d", "d1", INC, other, null);
    assertThat(fresh.counter).isZero();
    Verdict verdict = run.check();
    assertThat(verdict.valid()).as(verdict.text()).isTrue();
    assertThat(verdict.explainedDrops()).isEqualTo(1);
  }

  @Test
  void aLoginShowingAfterItsOwnReplyIsNoVanishedIdentity() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("v", "v1");
    run.run("v", "v1", INC, page, null);
    Call login = run.invoke("v", "v1", LOGIN, page, "anna");
    run.advance(2);
    run.seeOther(login); // 303: the connection travels by the freezer
    Call stale = run.run("v", "v1", READ, page, null); // still the guest
    run.apply(login);
    Call after = run.run("v", "v1", READ, page, null);
    assertThat(stale.user).startsWith("guest_");
    assertThat(after.user).isEqualTo("anna");
    assertThat(run.check().valid()).as(run.check().text()).isTrue();
  }

  @Test
  void aGuestRebornUnderHisNameIsAVanishedIdentityNotTwoCopies() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("v", "v1");
    for (int i = 0; i < 5; i++) {
      run.run("v", "v1", INC, page, null);
    }
    String guest = run.userNow("v");
    run.run("v", "v1", LOGIN, page, "anna"); // the guest's counter becomes anna's: 5
    run.run("v", "v1", INC, page, null);
    run.revertToGuest("v", guest); // the run forgets the login: the guest again, at 0
    Call reborn = run.run("v", "v1", INC, page, null);
    run.run("v", "v1", READ, page, null);
    assertThat(reborn.user).isEqualTo(guest);
    assertThat(reborn.counter).isEqualTo(1);
    Verdict verdict = run.check();
    assertOnly(verdict, AnomalyKind.LOST_WRITE);
    assertThat(verdict.count(AnomalyKind.LOST_WRITE)).isEqualTo(1);
    assertThat(verdict.examples(AnomalyKind.LOST_WRITE).get(0).explanation())
        .contains("was user anna").contains("connection was forgotten");
  }

  @Test
  void aPageRefusedWhileALoginTravelsIsAFailureNotALostPage() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("v", "v1");
    run.run("v", "v1", INC, page, null);
    Call login = run.invoke("v", "v2", LOGIN, null, "anna");
    run.advance(2);
    run.seeOther(login);
    Call refused = run.run("v", "v1", READ, page, null);
    run.apply(login);
    run.run("v", "v2", READ, null, null); // anna: the login settled
    assertOnly(check(refused(run.history(), refused.op), run), AnomalyKind.UNEXPLAINED_FAILURE);
    // the same refusal with no login around it proves the page lost
    SimulatedRun quiet = new SimulatedRun();
    page = quiet.openPage("v", "v1");
    quiet.run("v", "v1", INC, page, null);
    refused = quiet.run("v", "v1", READ, page, null);
    assertOnly(check(refused(quiet.history(), refused.op), quiet), AnomalyKind.LOST_WRITE);
  }

  /** The history with the completion of {@code op} turned into a {@code 404 unknown_page}. */
  private static List<Entry> refused(List<Entry> history, long op) {
    Entry ok = Entries.completion(history, op);
    List<Entry> edited = new ArrayList<>(history);
    edited.set(edited.indexOf(ok), Entries.of("type", Entry.FAIL, "t", ok.t(), "wall", ok.wall(),
        "op", op, "vuser", ok.vuser(), "process", ok.process(), "f", ok.f(), "via", ok.via(),
        "page", ok.page(), "status", 404, "error", "unknown_page"));
    return edited;
  }

  @Test
  void aMissingNoteIsALostWrite() {
    Scenario scenario = new Scenario();
    List<Entry> planted = Entries.withCompletion(scenario.run.history(),
        scenario.readOfNotes.op, "noteMax", 4);
    Verdict verdict = check(planted, scenario.run);
    assertOnly(verdict, AnomalyKind.LOST_WRITE);
    assertThat(verdict.examples(AnomalyKind.LOST_WRITE).get(0).register())
        .isEqualTo("page:" + scenario.notedPage);
  }

  @Test
  void tooFewNotesListedIsALostWrite() {
    Scenario scenario = new Scenario();
    List<Entry> planted = Entries.withCompletion(scenario.run.history(),
        scenario.readOfNotes.op, "notes", 4);
    assertOnly(check(planted, scenario.run), AnomalyKind.LOST_WRITE);
  }

  @Test
  void notesPushedOutByAHundredNewerOnesAreNotLost() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("n", "n1");
    for (int i = 0; i < 150; i++) {
      run.note("n", "n1", page);
    }
    Call read = run.run("n", "n1", READ, page, null);
    assertThat(read.notes).isEqualTo(100);
    assertThat(read.noteMax).isEqualTo(150);
    assertThat(run.check().valid()).isTrue();
  }

  @Test
  void aPageRefusedAsUnknownAfterAckedWritesIsALostWrite() {
    Scenario scenario = new Scenario();
    SimulatedRun run = scenario.run;
    run.forgetPage(scenario.quietPage);
    Call refused = run.run("q", "q1", INC, scenario.quietPage, null);
    run.run("q", "q1", READ, scenario.quietPage, null); // refused again: accounted to the first
    assertThat(refused.refusalStatus).isEqualTo(404);
    Verdict verdict = run.check();
    assertOnly(verdict, AnomalyKind.LOST_WRITE);
    assertThat(verdict.count(AnomalyKind.LOST_WRITE)).isEqualTo(1);
    assertThat(verdict.examples(AnomalyKind.LOST_WRITE).get(0).operations())
        .containsExactly(scenario.quietIncrement.op, refused.op);
  }

  @Test
  void aFailureOutsideEveryWindowIsUnexplained() {
    Scenario scenario = new Scenario();
    SimulatedRun run = scenario.run;
    Call call = run.invoke("q", "q1", INC, scenario.quietPage, null);
    run.advance(3);
    run.fail(call, 503, "saturated");
    assertOnly(run.check(), AnomalyKind.UNEXPLAINED_FAILURE);
  }

  @Test
  void theSameFailureInsideAWindowOrItsGraceIsExplained() {
    SimulatedRun inside = new SimulatedRun();
    String page = inside.openPage("q", "q1");
    long fault = inside.faultStart(FaultKind.PAUSE_WORKER, "w1");
    Call call = inside.invoke("q", "q1", INC, page, null);
    inside.advance(3);
    inside.fail(call, 503, "saturated");
    inside.faultEnd(fault, FaultKind.PAUSE_WORKER);
    assertThat(inside.check().valid()).isTrue();

    SimulatedRun afterwards = new SimulatedRun();
    page = afterwards.openPage("q", "q1");
    fault = afterwards.faultStart(FaultKind.RELOAD, null);
    afterwards.advance(100);
    afterwards.faultEnd(fault, FaultKind.RELOAD);
    afterwards.advance(9_000);
    call = afterwards.invoke("q", "q1", INC, page, null);
    afterwards.advance(3);
    afterwards.info(call, "java.net.ConnectException");
    assertThat(afterwards.check().valid()).as("9 s after: within the grace").isTrue();
    afterwards.advance(2_000);
    call = afterwards.invoke("q", "q1", READ, page, null);
    afterwards.advance(3);
    afterwards.info(call, "java.net.ConnectException");
    assertOnly(afterwards.check(), AnomalyKind.UNEXPLAINED_FAILURE);
    assertThat(Checker.check(afterwards.history(), afterwards.eventLog(), Duration.ofSeconds(20))
        .valid()).as("with a longer grace").isTrue();
  }

  @Test
  void aDocumentedLossExcusesALowerValue() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("a", "a1");
    run.run("a", "a1", LOGIN, page, "anna");
    for (int i = 0; i < 4; i++) {
      run.run("a", "a1", INC, page, null);
    }
    run.advance(50);
    run.rollBack("anna", 1, true); // back to a checkpoint, and the event log says so
    run.advance(50);
    Call read = run.run("a", "a1", READ, page, null);
    assertThat(read.counter).isEqualTo(1);
    run.run("a", "a1", INC, page, null);
    assertThat(run.check().valid()).as(run.check().text()).isTrue();
  }

  @Test
  void theSameLowerValueUndocumentedIsALostWrite() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("a", "a1");
    run.run("a", "a1", LOGIN, page, "anna");
    for (int i = 0; i < 4; i++) {
      run.run("a", "a1", INC, page, null);
    }
    run.advance(50);
    run.rollBack("anna", 1, false);
    run.advance(50);
    run.run("a", "a1", READ, page, null);
    assertOnly(run.check(), AnomalyKind.LOST_WRITE);
  }

  @Test
  void aLossDocumentedBeforeTheWriteDoesNotExcuseIt() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("a", "a1");
    run.run("a", "a1", LOGIN, page, "anna");
    run.run("a", "a1", INC, page, null);
    run.advance(50);
    run.rollBack("anna", 0, true); // documented, before the writes below
    run.advance(50);
    run.run("a", "a1", INC, page, null);
    run.run("a", "a1", INC, page, null);
    run.advance(50);
    run.rollBack("anna", 0, false);
    run.advance(50);
    run.run("a", "a1", READ, page, null);
    Verdict verdict = run.check();
    assertOnly(verdict, AnomalyKind.LOST_WRITE);
    assertThat(verdict.documentedLosses()).isEqualTo(1);
  }

  @Test
  void aLossDocumentedWithinTheSlackOfAnOperationTakesItOutOfTheEpoch() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("a", "a1");
    run.run("a", "a1", LOGIN, page, "anna");
    run.run("a", "a1", INC, page, null);
    Call straddling = run.invoke("a", "a1", INC, page, null);
    run.advance(1);
    run.apply(straddling); // 2
    run.advance(1);
    run.complete(straddling);
    run.advance(3); // the event is stamped 3 ms after the reply: within the slack
    run.rollBack("anna", 1, true);
    run.advance(20);
    run.run("a", "a1", READ, page, null); // 1: the straddling increment is lost, documented
    assertThat(run.check().valid()).as(run.check().text()).isTrue();
  }

  @Test
  void aDropOfANamedUserIsAnEndOnlyWhenALoginAwayFromHimExplainsIt() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("a", "a1");
    run.run("a", "a1", LOGIN, page, "anna");
    run.run("a", "a1", INC, page, null);
    run.run("a", "a1", INC, page, null);
    run.advance(10);
    run.event("fold", Map.of("worker", "w1", "seq", 9, "kind", "drop_user", "user", "anna"));
    run.rollBack("anna", 0, false); // "dropped" with no login away from her: a bug
    run.advance(10);
    run.run("a", "a1", READ, page, null);
    assertOnly(run.check(), AnomalyKind.LOST_WRITE);
    // the scenario's bob is dropped by a login away from him and starts again: no anomaly
    assertThat(new Scenario().run.check().valid()).isTrue();
  }

  @Test
  void aPlacementServedByTwoWorkersIsReported() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("a", "a1");
    String page2 = run.openPage("b", "b1");
    run.run("a", "a1", LOGIN, page, "anna");
    run.run("b", "b1", LOGIN, page2, "anna");
    Call first = run.invoke("a", "a1", INC, page, null);
    run.advance(1);
    run.apply(first);
    first.servedBy = "w1";
    first.generation = 7L;
    run.complete(first);
    Call second = run.invoke("b", "b1", INC, page2, null);
    run.advance(1);
    run.apply(second);
    second.servedBy = "w2";
    second.generation = 7L;
    run.complete(second);
    Verdict verdict = run.check();
    assertOnly(verdict, AnomalyKind.PLACEMENT_SERVED_TWICE);
    assertThat(verdict.examples(AnomalyKind.PLACEMENT_SERVED_TWICE).get(0).operations())
        .containsExactly(first.op, second.op);
    List<Entry> withoutGeneration = Entries.withCompletion(
        Entries.withCompletion(run.history(), first.op, "generation", null), second.op,
        "generation", null);
    assertThat(check(withoutGeneration, run).valid()).isTrue();
    List<Entry> nextGeneration = Entries.withCompletion(run.history(), second.op, "generation",
        8L);
    assertThat(check(nextGeneration, run).valid()).as("a move: a new placement").isTrue();
  }

  @Test
  void aHistoryThatDoesNotPairUpIsRefused() {
    SimulatedRun run = new SimulatedRun();
    run.openPage("a", "a1");
    List<Entry> history = new ArrayList<>(run.history());
    history.remove(0);
    assertThatThrownBy(() -> check(history, run)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("without a pending invocation");
    List<Entry> twice = new ArrayList<>(run.history());
    twice.add(1, run.history().get(0));
    assertThatThrownBy(() -> check(twice, run)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invoked a second time");
  }

  @Test
  void anOperationThatNeverCompletedIsCountedAndExcusesNothing() {
    SimulatedRun run = new SimulatedRun();
    String page = run.openPage("a", "a1");
    run.invoke("a", "a1", INC, page, null);
    Verdict verdict = run.check();
    assertThat(verdict.valid()).isTrue();
    assertThat(verdict.operations().get("inc")).containsEntry("pending", 1L);
  }

  @Test
  void theTextAndJsonNameTheAnomalies() throws Exception {
    Scenario scenario = new Scenario();
    List<Entry> planted = Entries.withCompletion(scenario.run.history(),
        scenario.lastReadOfAnna.op, "counter", 0);
    Verdict verdict = check(planted, scenario.run);
    assertThat(verdict.text()).startsWith("INVALID").contains("LOST_WRITE").contains("[anna]");
    var json = dev.cryo.chaos.history.History.JSON.readTree(verdict.json());
    assertThat(json.get("valid").asBoolean()).isFalse();
    assertThat(json.at("/anomalies/LOST_WRITE/count").asLong()).isEqualTo(1);
    assertThat(json.at("/anomalies/LOST_WRITE/examples/0/register").asText()).isEqualTo("anna");
    assertThat(json.at("/byRegister/anna/LOST_WRITE").asLong()).isEqualTo(1);
    assertThat(json.at("/operations/inc/ok").asLong()).isPositive();
  }

  @Test
  void eventsOfEveryDocumentedTypeNameLosses() {
    Instant at = Instant.ofEpochMilli(SimulatedRun.WALL_BASE + 500);
    List<Event> events = new ArrayList<>();
    long n = 1;
    for (String type : List.of("worker_died", "adopted", "drain_committed", "drain_failed",
        "shrunk", "replaced", "reload_ended", "quit_ended", "some_later_type")) {
      events.add(Event.of(n++, at, type, Map.of("lost", List.of("u_" + type))));
    }
    events.add(Event.of(n++, at, "user_expired", Map.of("user", "expired", "connections", 1)));
    events.add(Event.of(n, at, "drain_begun", Map.of("lost", 3))); // not a list: not a loss
    Verdict verdict = Checker.check(List.of(), EventLog.of(events), Duration.ZERO);
    assertThat(verdict.documentedLosses()).isEqualTo(10);
  }

  @Test
  void unknownFunctionsAndLineTypesAreCountedNotChecked() {
    SimulatedRun run = new SimulatedRun();
    List<Entry> history = new ArrayList<>(run.history());
    history.add(Entry.meta(0, SimulatedRun.WALL_BASE, "seed 1"));
    history.add(Entries.of("type", Entry.INVOKE, "t", 10, "wall", SimulatedRun.WALL_BASE,
        "op", 99, "vuser", "v", "process", "v1", "f", "dance", "via", "http"));
    history.add(Entries.of("type", Entry.OK, "t", 20, "wall", SimulatedRun.WALL_BASE, "op", 99,
        "vuser", "v", "process", "v1", "f", "dance", "via", "http", "user", "x", "status", 200,
        "counter", 5));
    history.add(Entries.of("type", "later_type", "t", 30, "wall", SimulatedRun.WALL_BASE));
    Verdict verdict = check(history, run);
    assertThat(verdict.valid()).isTrue();
    assertThat(verdict.operations().get("dance")).containsEntry("ok", 1L);
    assertThat(Function.values()).hasSize(6);
  }
}

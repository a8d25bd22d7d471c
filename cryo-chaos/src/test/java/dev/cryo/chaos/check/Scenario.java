package dev.cryo.chaos.check;

import static dev.cryo.chaos.history.Function.INC;
import static dev.cryo.chaos.history.Function.LOGIN;
import static dev.cryo.chaos.history.Function.MOVE;
import static dev.cryo.chaos.history.Function.READ;

import dev.cryo.chaos.check.SimulatedRun.Call;
import dev.cryo.chaos.history.FaultKind;

/**
 * A correct run that uses everything the checker must accept — concurrent operations, a
 * virtual user with two processes, logins of guests into a shared identity (with an increment in
 * flight across one), a user dropped when his last connection logs in elsewhere and started
 * afresh later, moves (one refused), notes past a page's hundred, a fault with refusals and
 * unknown outcomes inside it, a documented loss followed by a new guest and a refused page — with
 * handles on the calls the tests plant anomalies into.
 */
final class Scenario {

  final SimulatedRun run = new SimulatedRun();
  /** Two increments of anna, by two virtual users, concurrent. */
  final Call concurrentFirst;
  final Call concurrentSecond;
  /** A read of anna, then an increment of anna invoked after it completed. */
  final Call readBeforeIncrement;
  final Call incrementAfterRead;
  /** A read of anna with more observations of her after it. */
  final Call middleRead;
  /** The last observation of anna. */
  final Call lastReadOfAnna;
  /** A page with five notes and a read of it after them. */
  final String notedPage;
  final Call readOfNotes;
  /** The vuser and page that live through to the end: a guest with increments. */
  final String quietPage;
  final Call quietIncrement;
  /** When the fault window ended. */
  final long faultEndedAt;

  Scenario() {
    String pageA1 = run.openPage("a", "a1");
    String pageA2 = run.openPage("a", "a2");
    String pageB = run.openPage("b", "b1");
    String pageC = run.openPage("c", "c1");
    quietPage = run.openPage("q", "q1");

    // a's guest: two processes increment at once, applied in the other order
    Call x = run.invoke("a", "a1", INC, pageA1, null);
    run.advance(1);
    Call y = run.invoke("a", "a2", INC, pageA2, null);
    run.advance(1);
    run.apply(y);
    run.advance(1);
    run.apply(x);
    run.advance(2);
    run.complete(x);
    run.advance(1);
    run.complete(y);
    // a read overlapping an increment
    Call read = run.invoke("a", "a2", READ, pageA2, null);
    Call z = run.invoke("a", "a1", INC, pageA1, null);
    run.advance(1);
    run.apply(z);
    run.advance(1);
    run.apply(read);
    run.advance(1);
    run.complete(read);
    run.complete(z);
    // a logs in as anna (nobody holds her: the guest's counter becomes hers), while his other
    // process increments as the guest and its reply arrives after the login's
    Call inFlight = run.invoke("a", "a2", INC, pageA2, null);
    Call login = run.invoke("a", "a1", LOGIN, pageA1, "anna");
    run.advance(1);
    run.apply(inFlight);
    run.advance(1);
    run.apply(login);
    run.advance(1);
    run.complete(login);
    run.advance(3);
    run.complete(inFlight);
    // b's guest increments, then logs in as anna, who exists: his counter is dropped
    run.run("b", "b1", INC, pageB, null);
    run.run("b", "b1", INC, pageB, null);
    run.run("b", "b1", LOGIN, pageB, "anna");
    // anna increments from both at once
    concurrentFirst = run.invoke("a", "a1", INC, pageA1, null);
    run.advance(0.5);
    concurrentSecond = run.invoke("b", "b1", INC, pageB, null);
    run.advance(1);
    run.apply(concurrentFirst);
    run.advance(1);
    run.apply(concurrentSecond);
    run.advance(1);
    run.complete(concurrentSecond);
    run.advance(1);
    run.complete(concurrentFirst);
    run.advance(5);
    readBeforeIncrement = run.run("b", "b1", READ, pageB, null);
    run.advance(2);
    incrementAfterRead = run.run("a", "a2", INC, pageA2, null);
    run.advance(2);
    middleRead = run.run("b", "b1", READ, pageB, null);
    run.run("a", "a1", INC, pageA1, null);
    run.run("b", "b1", INC, pageB, null);

    // c writes notes, reads them; logs in as bob, increments, then as anna: bob is dropped
    for (int i = 0; i < 5; i++) {
      run.note("c", "c1", pageC);
    }
    notedPage = pageC;
    readOfNotes = run.run("c", "c1", READ, pageC, null);
    run.run("c", "c1", LOGIN, pageC, "bob");
    for (int i = 0; i < 4; i++) {
      run.run("c", "c1", INC, pageC, null);
    }
    run.run("c", "c1", LOGIN, pageC, "anna");
    run.run("c", "c1", INC, pageC, null);
    // d's guest increments once and logs in as bob, afresh: bob's counter starts again at 1
    String pageD = run.openPage("d", "d1");
    run.run("d", "d1", INC, pageD, null);
    run.run("d", "d1", LOGIN, pageD, "bob");
    run.run("d", "d1", INC, pageD, null);
    run.run("d", "d1", READ, pageD, null);

    // moves: one done, one refused (one worker only)
    run.run("a", "a1", MOVE, null, null);
    run.refuseMoves = true;
    run.run("b", "b1", MOVE, null, null);
    run.refuseMoves = false;

    // more than a hundred notes on one page: the oldest fall out
    String pageF = run.openPage("f", "f1");
    for (int i = 0; i < 130; i++) {
      run.note("f", "f1", pageF);
      run.advance(0.2);
    }
    run.run("f", "f1", READ, pageF, null);

    // e: a guest with writes, lost in a fault the run documents
    String pageE = run.openPage("e", "e1");
    run.run("e", "e1", INC, pageE, null);
    run.run("e", "e1", INC, pageE, null);
    quietIncrement = run.run("q", "q1", INC, quietPage, null);
    run.advance(100);
    long fault = run.faultStart(FaultKind.KILL_WORKER, "w1");
    run.advance(2);
    Call refused = run.invoke("a", "a1", INC, pageA1, null);
    Call unknownDone = run.invoke("b", "b1", INC, pageB, null);
    Call unknownNotDone = run.invoke("c", "c1", READ, pageC, null);
    run.advance(3);
    run.apply(unknownDone);
    run.advance(1);
    run.lose(run.userNow("e"), "worker_died");
    run.advance(20);
    run.fail(refused, 503, "saturated");
    run.info(unknownDone, "java.net.http.HttpTimeoutException");
    run.info(unknownNotDone, "java.io.IOException");
    run.advance(500);
    run.faultEnd(fault, FaultKind.KILL_WORKER);
    faultEndedAt = run.now();
    run.advance(15_000);
    // e comes back: his old page is unknown (explained by the loss), a new guest opens a new one
    run.run("e", "e1", INC, pageE, null);
    String pageE2 = run.openPage("e", "e1");
    run.run("e", "e1", INC, pageE2, null);

    // final reads
    run.advance(10);
    run.run("b", "b1", READ, pageB, null);
    run.run("c", "c1", READ, pageC, null);
    run.run("d", "d1", READ, pageD, null);
    run.run("e", "e1", READ, pageE2, null);
    run.run("q", "q1", READ, quietPage, null);
    run.run("a", "a2", READ, pageA2, null);
    lastReadOfAnna = run.run("a", "a1", READ, pageA1, null);
  }
}

package dev.cryo.chaos.check;

import dev.cryo.chaos.history.Entry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The rules of a page beyond its counter: its numbered notes and its disappearance.
 *
 * <ul>
 *   <li><b>Notes.</b> One process writes a page's notes, numbered in order, and the page keeps its
 *       last {@value #KEPT_NOTES}. So an observation R of the page's notes ({@code noteMax}, the
 *       highest number listed, and {@code notes}, how many) invoked after acked note k completed
 *       (same epoch) lists k or a newer one: {@code noteMax < k} for the newest such k means k is
 *       gone though no newer note could have pushed it out. And R lists at least
 *       {@code min(100, acked notes completed before it)} notes. Otherwise
 *       {@link AnomalyKind#LOST_WRITE}.
 *   <li><b>Unknown page.</b> A {@code 404 unknown_page} for a page that had acked writes (an
 *       increment or a note completed before it was invoked) with no documented loss of any of its
 *       owners from the last such write's invocation to the refusal is a
 *       {@link AnomalyKind#LOST_WRITE}, reported once per page (the later refusals of that page are
 *       accounted to it). A refusal after a documented loss of an owner since the page was first
 *       named is explained. A refusal is no proof of a loss when a login of the virtual user had
 *       not yet shown its effect ({@link Operations#duringLogin}: his connection may be in
 *       transit) or when the page answers an operation invoked after the refusal completed: then
 *       it is only a refusal, for {@link FailureCheck} to judge. A refusal invoked after a login of
 *       the virtual user whose reply never came, invoked after the page was first named, is
 *       explained: that login may have retired the connection's cookie unseen, and the
 *       connection, his pages with it, was forgotten after the grace (docs/security.md; the
 *       identity is kept, {@link VanishCheck} says the same of the switch to a guest).
 * </ul>
 */
final class PageCheck {

  /** How many notes a page keeps. */
  static final int KEPT_NOTES = 100;

  private PageCheck() {}

  /**
   * Checks a page's notes.
   *
   * @param written its acked notes with a number
   * @param observed its {@code ok} completions that list notes
   * @param ends the ends of its epochs
   */
  static void notes(String register, List<Operation> written, List<Operation> observed,
      long[] ends, Findings findings) {
    List<List<Operation>> notesByEpoch = Epochs.split(written, ends, operation -> operation);
    List<List<Operation>> readersByEpoch = Epochs.split(observed, ends, operation -> operation);
    for (int epoch = 0; epoch < notesByEpoch.size(); epoch++) {
      List<Operation> readers = readersByEpoch.get(epoch);
      if (!readers.isEmpty()) {
        notesInEpoch(register, new ArrayList<>(notesByEpoch.get(epoch)),
            new ArrayList<>(readers), findings);
      }
    }
  }

  private static void notesInEpoch(String register, List<Operation> notes,
      List<Operation> readers, Findings findings) {
    notes.sort(Comparator.comparingLong(Operation::completeT));
    readers.sort(Comparator.comparingLong(Operation::invokeT));
    int done = 0;
    Operation newest = null;
    long newestNumber = Long.MIN_VALUE;
    for (Operation reader : readers) {
      while (done < notes.size() && notes.get(done).completeT() < reader.invokeT()) {
        Operation note = notes.get(done++);
        if (note.noteNumber() > newestNumber) {
          newestNumber = note.noteNumber();
          newest = note;
        }
      }
      Entry reply = reader.completion();
      if (newest != null && (reply.noteMax() == null || reply.noteMax() < newestNumber)) {
        findings.add(AnomalyKind.LOST_WRITE, register, reader.describe() + " lists notes up to "
            + (reply.noteMax() == null ? "none of ours" : "number " + reply.noteMax())
            + ", but note " + newestNumber + " (" + newest.describe() + ") was acked before it"
            + " was invoked, and no newer note could have pushed it out", newest, reader);
      } else if (reply.notes() != null && reply.notes() < Math.min(KEPT_NOTES, done)) {
        findings.add(AnomalyKind.LOST_WRITE, register, reader.describe() + " lists "
            + reply.notes() + " notes, but " + done + " notes were acked before it was invoked"
            + " (a page keeps its last " + KEPT_NOTES + ")", reader);
      }
    }
  }

  /**
   * Checks a page's {@code 404 unknown_page} refusals.
   *
   * @param writes its acked increments and notes
   * @param refusals its {@code 404 unknown_page} refusals
   * @param ownerLosses the documented losses of any of its owners
   * @param firstNamedWall when an operation first named the page (wall, ms)
   * @param retired the refusals after a login of the virtual user whose reply never came, invoked
   *     since the page was first named: explained
   * @param notProof the refusals that prove no loss (a login of the virtual user unsettled, the
   *     page answering again later): left to {@link FailureCheck}
   * @param explained receives the refusals explained by a loss or accounted to a reported one
   */
  static void unknownPage(String register, List<Operation> writes, List<Operation> refusals,
      long[] ownerLosses, long firstNamedWall, Predicate<Operation> retired,
      Predicate<Operation> notProof,
      Set<Long> explained, Findings findings) {
    List<Operation> acked = new ArrayList<>(writes);
    acked.sort(Comparator.comparingLong(Operation::completeT));
    long[] completions = new long[acked.size()];
    for (int i = 0; i < completions.length; i++) {
      completions[i] = acked.get(i).completeT();
    }
    List<Operation> sorted = new ArrayList<>(refusals);
    sorted.sort(Comparator.comparingLong(Operation::invokeT));
    boolean reported = false;
    for (Operation refusal : sorted) {
      long until = refusal.completeWall() + Epochs.SLACK_MILLIS;
      int before = Epochs.countBelow(completions, refusal.invokeT());
      Operation write = before == 0 ? null : acked.get(before - 1);
      if (retired.test(refusal)) {
        explained.add(refusal.id());
      } else if (write == null) {
        if (Epochs.anyWithin(ownerLosses, firstNamedWall - Epochs.SLACK_MILLIS, until)) {
          explained.add(refusal.id());
        }
      } else if (Epochs.anyWithin(ownerLosses, write.invokeWall() - Epochs.SLACK_MILLIS, until)) {
        explained.add(refusal.id());
      } else if (notProof.test(refusal)) {
        continue; // no proof of a loss: left to the failures' rule
      } else {
        explained.add(refusal.id());
        if (!reported) {
          reported = true;
          findings.add(AnomalyKind.LOST_WRITE, register, refusal.describe() + " was refused 404"
              + " unknown_page, but " + write.describe() + " had acked a write to it and no loss"
              + " of its owners is documented since", write, refusal);
        }
      }
    }
  }
}

package dev.cryo.control;

import java.util.Objects;
import java.util.Optional;

/**
 * What a reader found at {@code stop-request}. {@code present} is whether an entry of that name
 * exists; {@code request} is set when it parsed and {@code problem} (bounded) when it did not. A
 * request that does not parse reads as a drain for every invocation: whoever wrote something there
 * wanted a stop, and a server that cannot tell which is safest draining. Immutable.
 *
 * @param present whether an entry exists at {@code stop-request}
 * @param request the request, when it parsed
 * @param problem why it does not parse (at most 500 characters, no control or format character:
 *     safe to print), empty otherwise
 */
public record StopReading(boolean present, Optional<StopRequest> request, String problem) {

  /** Checks the fields. */
  public StopReading {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(problem, "problem");
    if (!present && (request.isPresent() || !problem.isEmpty())) {
      throw new IllegalArgumentException("an absent request has neither content nor problem");
    }
  }

  /** Nothing at {@code stop-request}. */
  public static StopReading absent() {
    return new StopReading(false, Optional.empty(), "");
  }

  static StopReading parsed(StopRequest request) {
    return new StopReading(true, Optional.of(request), "");
  }

  static StopReading unparseable(String problem) {
    // Bounded and printable: it quotes what a hostile writer put in the file, and is printed.
    return new StopReading(true, Optional.empty(),
        StrictJson.bounded(StrictJson.printable(problem)));
  }

  /** The mode a server reads: the request's, a drain for one that does not parse, empty if absent. */
  public Optional<StopMode> mode() {
    if (request.isPresent()) {
      return Optional.of(request.get().mode());
    }
    return present ? Optional.of(StopMode.DRAIN) : Optional.empty();
  }

  /** Whether invocation {@code invocationId} stops on it: its own request, or one that does not parse. */
  public boolean appliesTo(String invocationId) {
    return present && request.map(r -> r.invocationId().equals(invocationId)).orElse(true);
  }

  /** Whether it parsed and names another invocation than {@code invocationId}. */
  public boolean boundElsewhere(String invocationId) {
    return request.isPresent() && !request.get().invocationId().equals(invocationId);
  }

  /** Whether something is there that does not parse. */
  public boolean unparseable() {
    return present && request.isEmpty();
  }
}

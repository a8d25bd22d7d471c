package dev.cryo.commander;

/**
 * What placement knows of one worker at the moment it decides. Immutable.
 *
 * @param name the worker's name
 * @param order its birth order in the run (the oldest has the lowest): the reception is the oldest
 *     running worker
 * @param running whether it presented itself and is serving (not starting, quitting or dead)
 * @param occupancy the users counted against its admission (living on it, or bound for it)
 * @param heapUsedBytes its used heap, from its last photo
 * @param heapMaxBytes its heap ceiling, from its last photo; 0 when no photo told it
 */
public record WorkerView(String name, long order, boolean running, int occupancy,
    long heapUsedBytes, long heapMaxBytes) {}

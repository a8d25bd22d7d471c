/**
 * The workload: virtual users of the demo application, each with his own cookie and 1–3 pages
 * (one process, a virtual thread, per page; one operation at a time per process), incrementing,
 * reading, writing notes, moving and logging in — some over the page socket — every operation
 * recorded by the {@link dev.cryo.chaos.load.Recorder}. {@link dev.cryo.chaos.load.FakeDemo} is an
 * in-process stand-in of the demo's API, correct or with a planted defect, to measure the
 * generator alone and to test the harness and the checker end to end.
 */
package dev.cryo.chaos.load;

/**
 * The speed of {@code cryo-freezer}, measured beside its anchor, Tomcat's session {@code FileStore},
 * and beside the floor of bare file calls, in one JMH run.
 *
 * <ul>
 *   <li>{@link dev.cryo.bench.freezer.FreezeAdoptBenchmark} (JMH): one realistic user
 *       ({@link dev.cryo.bench.freezer.RealisticUser}: a 2 KB store, two connections of three pages
 *       with 1 KB stores) frozen and adopted per second by cryo
 *       ({@link dev.cryo.bench.freezer.CryoFreezeAdopt}), by Tomcat's {@code FileStore} with its
 *       own Java serialisation ({@link dev.cryo.bench.freezer.TomcatFileStoreSwap}), and by bare
 *       file calls on the same bytes ({@link dev.cryo.bench.freezer.FileFloor}).
 *   <li>{@link dev.cryo.bench.freezer.CodecBenchmark} (JMH): the codec alone, CBOR beside JDK
 *       serialisation and Jackson JSON; its {@code main} prints the encoded sizes.
 * </ul>
 *
 * <p>Every contender checks that what it read back is whole and fails otherwise; timings are never
 * asserted in tests. Tomcat is used only through its published jar. {@code docs/benchmarks.md}
 * keeps the latest figures and the commands that reproduce them. Nothing here is shipped.
 */
package dev.cryo.bench.freezer;

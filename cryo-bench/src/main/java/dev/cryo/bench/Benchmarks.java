package dev.cryo.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The runnable jar's entry point: JMH's own command line, with short defaults for the options the
 * caller does not give.
 *
 * <pre>
 * java -jar cryo-bench/target/benchmarks.jar                 # every benchmark, short run
 * java -jar cryo-bench/target/benchmarks.jar -f 3 -i 10 -r 2s   # longer, more forks
 * java -jar cryo-bench/target/benchmarks.jar -h              # JMH's help
 * </pre>
 *
 * <p>The defaults are one fork, three warm-up iterations and five measurement iterations of one
 * second each ({@code -f 1 -wi 3 -i 5 -w 1s -r 1s}); any of them given on the command line wins.
 */
public final class Benchmarks {

  private static final List<String[]> DEFAULTS = List.of(
      new String[] {"-f", "1"},
      new String[] {"-wi", "3"},
      new String[] {"-i", "5"},
      new String[] {"-w", "1s"},
      new String[] {"-r", "1s"});

  /** Options after which JMH prints something and runs nothing: no defaults are added. */
  private static final Set<String> INFORMATIVE = Set.of("-h", "-l", "-lp", "-lprof", "-lrf");

  private Benchmarks() {}

  /**
   * Runs JMH with {@code args}, completed by the short defaults.
   *
   * @param args JMH's command line (benchmark regular expressions and options)
   */
  public static void main(String[] args) throws Exception {
    org.openjdk.jmh.Main.main(withDefaults(args));
  }

  /** {@code args} preceded by each default option that {@code args} does not set. */
  static String[] withDefaults(String[] args) {
    List<String> given = List.of(args);
    if (given.stream().anyMatch(INFORMATIVE::contains)) {
      return args;
    }
    List<String> all = new ArrayList<>();
    for (String[] option : DEFAULTS) {
      if (!given.contains(option[0])) {
        all.add(option[0]);
        all.add(option[1]);
      }
    }
    all.addAll(given);
    return all.toArray(String[]::new);
  }
}

package dev.cryo.bench.serve;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Versions of one small application ({@value #APP}), compiled and jarred at test time, as a
 * deploy would ship them: the demo's API ({@code POST /api/pages}, {@code POST /api/counter}) over
 * a per-user state whose class changes between versions.
 */
final class AppVersions {

  /** The application's class name, the same in every version (never on the classpath). */
  static final String APP = "reloadtest.Counter";

  private AppVersions() {}

  /** Version 1: {@code Visitor(long counter, String nickname)}, state version 1. */
  static final String ONE = common("record Visitor(long counter, String nickname) {}",
      "new Visitor(v.counter() + 1, \"v1\")", "");

  /** Version 2: lost {@code nickname}, gained {@code tags}; state version 1 still. */
  static final String TWO = common("record Visitor(long counter, java.util.List<String> tags) {}",
      "new Visitor(v.counter() + 1, v.tags())", "");

  /** Version 3: state version 2 ({@code counter} became {@code count}), upgraded from 1. */
  static final String THREE = common("record Visitor(long count, java.util.List<String> tags) {"
      + " public long counter() { return count; } }",
      "new Visitor(v.count() + 1, v.tags())",
      "@Override public int stateVersion() { return 2; }\n"
      + "@Override public Object upgrade(StoredState stored) {\n"
      + "  if (stored.key().equals(\"Visitor\")) {\n"
      + "    Object old = ((java.util.Map<?, ?>) stored.value()).get(\"counter\");\n"
      + "    return new Visitor(old == null ? 0 : ((Number) old).longValue(), java.util.List.of());\n"
      + "  }\n"
      + "  return stored.value();\n"
      + "}\n");

  private static String common(String visitor, String next, String versions) {
    return "package reloadtest;\n"
        + "import dev.cryo.app.*;\n"
        + "import java.util.Map;\n"
        + "public final class Counter implements CryoApplication {\n"
        + "  @StateKey(\"Visitor\") public " + visitor + "\n"
        + "  public record PageBody(String page) {}\n"
        + "  @Override public void routes(Routes routes) {\n"
        + "    routes.post(\"/api/pages\", call -> Map.of(\"page\", call.openPage()));\n"
        + "    routes.post(\"/api/counter\", PageBody.class, (call, body) -> {\n"
        + "      Visitor visitor = call.user(Visitor.class).update(v -> " + next + ");\n"
        + "      return Map.of(\"user\", call.user(), \"counter\", visitor.counter(),"
        + " \"worker\", call.worker());\n"
        + "    });\n"
        + "  }\n"
        + versions
        + "}\n";
  }

  /** {@code source} compiled against this JVM's classpath (cryo-app) and jarred at {@code jar}. */
  static Path jar(Path scratch, String name, String source) throws IOException {
    Path sources = Files.createDirectories(scratch.resolve(name + "-src/reloadtest"));
    Path classes = Files.createDirectories(scratch.resolve(name + "-classes"));
    Path file = sources.resolve("Counter.java");
    Files.writeString(file, source, StandardCharsets.UTF_8);
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    int status = compiler.run(null, null, null, "-d", classes.toString(), "-classpath",
        System.getProperty("java.class.path"), "--release", "21", file.toString());
    if (status != 0) {
      throw new IOException("version " + name + " did not compile (status " + status + ")");
    }
    Path jar = scratch.resolve(name + ".jar");
    List<Path> compiled = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(classes)) {
      walk.filter(Files::isRegularFile).forEach(compiled::add);
    }
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream jarOut = new JarOutputStream(out)) {
      for (Path path : compiled) {
        jarOut.putNextEntry(new JarEntry(classes.relativize(path).toString().replace('\\', '/')));
        jarOut.write(Files.readAllBytes(path));
        jarOut.closeEntry();
      }
    }
    return jar;
  }
}

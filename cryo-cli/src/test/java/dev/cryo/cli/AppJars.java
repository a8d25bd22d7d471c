package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.ToolProvider;

/** Application jars built in a test: sources compiled against the test's classpath, then jarred. */
final class AppJars {

  private AppJars() {}

  /**
   * Compiles {@code sources} (binary class name to Java source) in {@code scratch} and jars the
   * classes, with {@code extra} entries (path to bytes) beside them.
   */
  static Path build(Path scratch, String name, Map<String, String> sources,
      Map<String, byte[]> extra) throws IOException {
    Path root = Files.createDirectories(scratch.resolve(name + "-build"));
    Path src = Files.createDirectories(root.resolve("src"));
    Path classes = Files.createDirectories(root.resolve("classes"));
    String[] args = new String[4 + sources.size()];
    args[0] = "-d";
    args[1] = classes.toString();
    args[2] = "-cp";
    args[3] = System.getProperty("java.class.path");
    int i = 4;
    for (Map.Entry<String, String> source : sources.entrySet()) {
      Path file = src.resolve(source.getKey().replace('.', '/') + ".java");
      Files.createDirectories(file.getParent());
      Files.writeString(file, source.getValue());
      args[i++] = file.toString();
    }
    assertThat(ToolProvider.getSystemJavaCompiler().run(null, null, null, args)).isZero();
    Path jar = scratch.resolve(name + ".jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> files = Files.walk(classes)) {
      for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
        out.write(Files.readAllBytes(file));
        out.closeEntry();
      }
      for (Map.Entry<String, byte[]> entry : extra.entrySet()) {
        out.putNextEntry(new JarEntry(entry.getKey()));
        out.write(entry.getValue());
        out.closeEntry();
      }
    }
    return jar;
  }
}

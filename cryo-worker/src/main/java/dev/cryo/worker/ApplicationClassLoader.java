package dev.cryo.worker;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The class loader of an application loaded from its jar ({@code --app-path}), and the rule it
 * follows (docs/app.md, "Class loading"):
 *
 * <ul>
 *   <li>The JDK's classes come from the JDK.
 *   <li><b>Shared</b>: the API ({@code dev.cryo.app}) and the libraries it shares with the
 *       application — Jackson ({@code com.fasterxml.jackson}: state and replies are read and written
 *       by cryo's mapper, which must see the application's annotations as its own), SLF4J
 *       ({@code org.slf4j}: the application logs through the worker's backend) and Micrometer
 *       ({@code io.micrometer}: meters given to the application are exported by cryo) — come from
 *       cryo, whatever the jar holds. A class of those packages that cryo does not have comes from
 *       the jar.
 *   <li>Everything else comes from the jar first, then from cryo's classpath: the application's
 *       own libraries are the versions it bundled, never cryo's internal ones.
 * </ul>
 *
 * <p>{@link #conflicts} names what the jar bundles of the shared libraries that cryo has too —
 * copies that are never loaded — one line per library, for the worker to log at start.
 *
 * <p>Thread-safe (registered as parallel capable, as {@link URLClassLoader}).
 */
final class ApplicationClassLoader extends URLClassLoader {

  static {
    registerAsParallelCapable();
  }

  /** A library shared from cryo: its name, its packages, and a class that tells whether cryo has it. */
  record Shared(String library, String packagePrefix, String marker) {}

  /** The shared packages, in the order their conflicts are told. */
  static final List<Shared> SHARED = List.of(
      new Shared("cryo-app", "dev.cryo.app.", "dev.cryo.app.CryoApplication"),
      new Shared("Jackson", "com.fasterxml.jackson.", "com.fasterxml.jackson.databind.ObjectMapper"),
      new Shared("SLF4J", "org.slf4j.", "org.slf4j.Logger"),
      new Shared("Micrometer", "io.micrometer.", "io.micrometer.core.instrument.MeterRegistry"));

  private final ClassLoader platform = ClassLoader.getPlatformClassLoader();

  ApplicationClassLoader(Path jar, ClassLoader cryo) throws IOException {
    super("cryo-app " + jar.getFileName(), new URL[] {jar.toUri().toURL()}, cryo);
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    synchronized (getClassLoadingLock(name)) {
      Class<?> found = findLoadedClass(name);
      if (found == null) {
        found = load(name);
      }
      if (resolve) {
        resolveClass(found);
      }
      return found;
    }
  }

  private Class<?> load(String name) throws ClassNotFoundException {
    try {
      return platform.loadClass(name); // the JDK's, always
    } catch (ClassNotFoundException notTheJdks) {
      // the application's or cryo's
    }
    if (shared(name)) {
      try {
        return getParent().loadClass(name); // cryo's wins
      } catch (ClassNotFoundException notCryos) {
        return findClass(name);
      }
    }
    try {
      return findClass(name); // the jar's first
    } catch (ClassNotFoundException notTheJars) {
      return getParent().loadClass(name);
    }
  }

  /** Whether {@code className} is of a package shared from cryo. */
  static boolean shared(String className) {
    for (Shared shared : SHARED) {
      if (className.startsWith(shared.packagePrefix())) {
        return true;
      }
    }
    return false;
  }

  /**
   * What {@code jar} bundles of the shared libraries that {@code cryo} has too: one line per
   * library, naming it, how many classes the jar holds of it, and that cryo's wins; empty when
   * none.
   *
   * @throws IOException when the jar cannot be read
   */
  static List<String> conflicts(Path jar, ClassLoader cryo) throws IOException {
    Map<Shared, Integer> bundled = new LinkedHashMap<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      Enumeration<JarEntry> entries = file.entries();
      while (entries.hasMoreElements()) {
        String entry = entries.nextElement().getName();
        if (!entry.endsWith(".class")) {
          continue;
        }
        String className = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
        for (Shared shared : SHARED) {
          if (className.startsWith(shared.packagePrefix())) {
            bundled.merge(shared, 1, Integer::sum);
          }
        }
      }
    }
    List<String> lines = new ArrayList<>();
    for (Shared shared : SHARED) {
      Integer count = bundled.get(shared);
      if (count == null) {
        continue;
      }
      Class<?> marker;
      try {
        marker = Class.forName(shared.marker(), false, cryo);
      } catch (ClassNotFoundException | LinkageError cryoHasNone) {
        continue; // cryo has none: the jar's is the one loaded, no conflict
      }
      String version = marker.getPackage() == null ? null
          : marker.getPackage().getImplementationVersion();
      lines.add("the application's jar " + jar.getFileName() + " bundles " + shared.library()
          + " (" + count + " classes under " + shared.packagePrefix() + "); cryo's own "
          + shared.library() + (version == null ? "" : " " + version) + " wins and the jar's"
          + " copy is never loaded: depend on " + shared.library() + " with scope provided and"
          + " leave it out of the jar (docs/app.md, class loading)");
    }
    return lines;
  }
}

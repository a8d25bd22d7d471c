package dev.cryo.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.Routes;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link AppHost#load}: from the classpath, from a jar, and every way it can go wrong. */
class AppHostLoadTest {

  @TempDir Path temp;

  /** Not an application. */
  public static final class NotAnApplication {}

  /** An application without a public no-argument constructor. */
  public static final class NeedsAnArgument implements CryoApplication {
    public NeedsAnArgument(String argument) {}

    @Override
    public void routes(Routes routes) {}
  }

  /** An application whose constructor throws. */
  public static final class Throws implements CryoApplication {
    public Throws() {
      throw new IllegalStateException("no database");
    }

    @Override
    public void routes(Routes routes) {}
  }

  /** An application whose routes are wrong. */
  public static final class BadRoutes implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.get("no-slash", call -> null);
    }
  }

  /** An application whose handler class says it is asynchronous. */
  public static final class Asynchronous implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.get("/cart", new dev.cryo.app.Handler() {
        @Override
        public java.util.concurrent.CompletableFuture<Object> handle(dev.cryo.app.Call call) {
          return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
      });
    }
  }

  private static AppHost.LoadException.Reason reasonOf(String className, Path jar) {
    try {
      AppHost.load(className, jar);
      throw new AssertionError(className + " loaded");
    } catch (AppHost.LoadException e) {
      assertThat(e.getMessage()).contains("nothing was loaded").satisfiesAnyOf(
          message -> assertThat(message).contains(className),
          message -> assertThat(message).contains(String.valueOf(jar)));
      return e.reason();
    }
  }

  @Test
  void anApplicationOnTheClasspathIsLoaded() {
    AppHost host = AppHost.load(TallyApplication.class.getName(), null);
    assertThat(host.application()).isInstanceOf(TallyApplication.class);
    assertThat(host.moveRoutes()).containsExactly(List.of("POST", "/move"));
  }

  @Test
  void eachWayToFailSaysWhatAndWhy() {
    assertThat(reasonOf("com.example.Nowhere", null))
        .isEqualTo(AppHost.LoadException.Reason.NOT_FOUND);
    assertThat(reasonOf(NotAnApplication.class.getName(), null))
        .isEqualTo(AppHost.LoadException.Reason.NOT_AN_APPLICATION);
    assertThat(reasonOf(NeedsAnArgument.class.getName(), null))
        .isEqualTo(AppHost.LoadException.Reason.CANNOT_MAKE);
    assertThat(reasonOf(Throws.class.getName(), null))
        .isEqualTo(AppHost.LoadException.Reason.CANNOT_MAKE);
    assertThat(reasonOf(TallyApplication.class.getName(), temp.resolve("missing.jar")))
        .isEqualTo(AppHost.LoadException.Reason.BAD_JAR);
    assertThatThrownBy(() -> AppHost.load(BadRoutes.class.getName(), null))
        .isInstanceOfSatisfying(AppHost.LoadException.class,
            e -> assertThat(e.reason()).isEqualTo(AppHost.LoadException.Reason.BAD_ROUTES))
        .hasMessageContaining("starts with '/'");
    assertThatThrownBy(() -> AppHost.load(Asynchronous.class.getName(), null))
        .isInstanceOfSatisfying(AppHost.LoadException.class,
            e -> assertThat(e.reason()).isEqualTo(AppHost.LoadException.Reason.BAD_ROUTES))
        .hasMessageContaining("GET /cart").hasMessageContaining("a handler is synchronous");
  }

  @Test
  void anApplicationInAJarIsLoadedWithItsOwnClassLoader() throws Exception {
    Path source = temp.resolve("src/com/example/jarred/Hello.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, """
        package com.example.jarred;
        public final class Hello implements dev.cryo.app.CryoApplication {
          @Override public void routes(dev.cryo.app.Routes routes) {
            routes.get("/hello", call -> java.util.Map.of("hello", call.user()));
          }
        }
        """);
    Path classes = Files.createDirectories(temp.resolve("classes"));
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    int status = compiler.run(null, null, null, "-d", classes.toString(), "-cp",
        System.getProperty("java.class.path"), source.toString());
    assertThat(status).isZero();
    Path jar = temp.resolve("hello.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> files = Files.walk(classes)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
        out.write(Files.readAllBytes(file));
        out.closeEntry();
      }
    }
    assertThat(reasonOf("com.example.jarred.Hello", null))
        .isEqualTo(AppHost.LoadException.Reason.NOT_FOUND);

    AppHost host = AppHost.load("com.example.jarred.Hello", jar);

    assertThat(host.application().getClass().getClassLoader())
        .isNotSameAs(AppHost.class.getClassLoader());
    try (Harness harness = new Harness(temp.resolve("run"))) {
      Worker worker = harness.builder("w1").application(host).build();
      harness.workers.add(worker);
      dev.cryo.app.Response reply = AppHostTest.serve(worker,
          AppHostTest.http("anna", "c1", "GET", "/hello", null));
      assertThat(new String(reply.body(), StandardCharsets.UTF_8)).isEqualTo("{\"hello\":\"anna\"}");
    }
    assertThat(reasonOf(TallyApplication.class.getName(), writeNotAJar()))
        .isEqualTo(AppHost.LoadException.Reason.BAD_JAR);
  }

  /**
   * A library in the application's jar that finds its parts through {@link java.util.ServiceLoader}
   * (a shaded JDBC driver, say) finds them: the application's class loader is the thread's context
   * class loader wherever application code runs — its construction, its routes, its hooks, its
   * handlers.
   */
  @Test
  void theApplicationsClassLoaderIsTheContextClassLoaderWhereverItsCodeRuns() throws Exception {
    Path sources = temp.resolve("src/com/example/shop");
    Files.createDirectories(sources);
    Files.writeString(sources.resolve("Driver.java"), """
        package com.example.shop;
        public interface Driver { String name(); }
        """);
    Files.writeString(sources.resolve("ShadedDriver.java"), """
        package com.example.shop;
        public final class ShadedDriver implements Driver {
          @Override public String name() { return "shaded"; }
        }
        """);
    Files.writeString(sources.resolve("Shop.java"), """
        package com.example.shop;
        import java.util.ArrayList;
        import java.util.List;
        import java.util.Map;
        import java.util.ServiceLoader;
        public final class Shop implements dev.cryo.app.CryoApplication {
          private final List<String> seen = new ArrayList<>();
          private void see(String where) {
            seen.add(where + "=" + (Thread.currentThread().getContextClassLoader()
                == Shop.class.getClassLoader()));
          }
          public Shop() { see("constructor"); }
          @Override public void routes(dev.cryo.app.Routes routes) {
            see("routes");
            routes.get("/drivers", call -> {
              see("handler");
              List<String> drivers = new ArrayList<>();
              ServiceLoader.load(Driver.class).forEach(driver -> drivers.add(driver.name()));
              return Map.of("drivers", drivers, "seen", List.copyOf(seen));
            });
          }
          @Override public void onWake(dev.cryo.app.Stay stay) { see("onWake"); }
        }
        """);
    Path classes = Files.createDirectories(temp.resolve("shop-classes"));
    try (Stream<Path> files = Files.list(sources)) {
      List<String> arguments = new java.util.ArrayList<>(List.of("-d", classes.toString(), "-cp",
          System.getProperty("java.class.path")));
      files.forEach(file -> arguments.add(file.toString()));
      assertThat(ToolProvider.getSystemJavaCompiler().run(null, null, null,
          arguments.toArray(String[]::new))).isZero();
    }
    Path services = Files.createDirectories(classes.resolve("META-INF/services"));
    Files.writeString(services.resolve("com.example.shop.Driver"), "com.example.shop.ShadedDriver\n");
    Path jar = temp.resolve("shop.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> files = Files.walk(classes)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
        out.write(Files.readAllBytes(file));
        out.closeEntry();
      }
    }
    ClassLoader before = Thread.currentThread().getContextClassLoader();

    AppHost host = AppHost.load("com.example.shop.Shop", jar);

    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(before);
    try (Harness harness = new Harness(temp.resolve("shop-run"))) {
      Worker worker = harness.builder("w1").application(host).build();
      harness.workers.add(worker);
      com.fasterxml.jackson.databind.JsonNode reply = AppHostTest.json(AppHostTest.serve(worker,
          AppHostTest.http("anna", "c1", "GET", "/drivers", null)));
      assertThat(reply.get("drivers").toString()).isEqualTo("[\"shaded\"]");
      assertThat(reply.get("seen").toString()).isEqualTo("[\"constructor=true\","
          + "\"routes=true\",\"onWake=true\",\"handler=true\"]");
    }
    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(before);
  }

  private Path writeNotAJar() throws Exception {
    Path file = temp.resolve("not-a-jar.jar");
    try (OutputStream out = Files.newOutputStream(file)) {
      out.write("not a zip".getBytes(StandardCharsets.UTF_8));
    }
    return file;
  }
}

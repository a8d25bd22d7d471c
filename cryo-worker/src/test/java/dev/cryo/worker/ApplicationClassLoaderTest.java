package dev.cryo.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The class-loading rule of an application's jar: the API and the libraries it shares from cryo
 * (Jackson here), everything else from the jar first; a shared library the jar bundles too is
 * told at load, in one line naming it and what wins.
 */
class ApplicationClassLoaderTest {

  @TempDir Path temp;

  @Test
  void sharedLibrariesComeFromCryoTheRestFromTheJarAndABundledCopyIsToldAtLoad() throws Exception {
    Map<String, String> sources = Map.of(
        // the application, which names a library of its own and Jackson
        "com.example.bundled.Shop", """
            package com.example.bundled;
            public final class Shop implements dev.cryo.app.CryoApplication {
              @Override public void routes(dev.cryo.app.Routes routes) {
                routes.get("/who", call -> java.util.Map.of(
                    "lib", org.apiguardian.api.API.class.getClassLoader() == Shop.class.getClassLoader(),
                    "jackson", com.fasterxml.jackson.databind.ObjectMapper.class.getClassLoader()
                        == dev.cryo.app.CryoApplication.class.getClassLoader()));
              }
            }
            """,
        // a library on the worker's classpath too (a test dependency there): the jar's wins
        "org.apiguardian.api.API", """
            package org.apiguardian.api;
            public @interface API { String bundled() default "by the application"; }
            """,
        // a stand-in for a bundled Jackson: cryo's wins, this one is never loaded
        "com.fasterxml.jackson.databind.ObjectMapper", """
            package com.fasterxml.jackson.databind;
            public class ObjectMapper { public static final String BUNDLED = "application"; }
            """);
    Path src = Files.createDirectories(temp.resolve("src"));
    Path classes = Files.createDirectories(temp.resolve("classes"));
    List<String> arguments = new ArrayList<>(List.of("-d", classes.toString(), "-cp",
        System.getProperty("java.class.path")));
    for (Map.Entry<String, String> source : sources.entrySet()) {
      Path file = src.resolve(source.getKey().replace('.', '/') + ".java");
      Files.createDirectories(file.getParent());
      Files.writeString(file, source.getValue());
      arguments.add(file.toString());
    }
    assertThat(ToolProvider.getSystemJavaCompiler().run(null, null, null,
        arguments.toArray(String[]::new))).isZero();
    Path jar = temp.resolve("shop.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> files = Files.walk(classes)) {
      for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
        out.write(Files.readAllBytes(file));
        out.closeEntry();
      }
    }
    List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
    Logger logger = Logger.getLogger(AppHost.class.getName());
    Handler handler = new Handler() {
      @Override
      public void publish(LogRecord record) {
        if (record.getLevel() == java.util.logging.Level.WARNING) {
          warnings.add(record.getMessage());
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    logger.addHandler(handler);
    AppHost host;
    try {
      host = AppHost.load("com.example.bundled.Shop", jar);
    } finally {
      logger.removeHandler(handler);
    }

    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0)).contains("shop.jar bundles Jackson (1 classes under"
        + " com.fasterxml.jackson.)", "cryo's own Jackson", "wins", "scope provided");
    try (Harness harness = new Harness(temp.resolve("run"))) {
      Worker worker = harness.builder("w1").application(host).build();
      harness.workers.add(worker);
      com.fasterxml.jackson.databind.JsonNode reply = AppHostTest.json(AppHostTest.serve(worker,
          AppHostTest.http("anna", "c1", "GET", "/who", null)));
      assertThat(reply.get("jackson").asBoolean()).as("Jackson is cryo's").isTrue();
      assertThat(reply.get("lib").asBoolean()).as("the application's own library is the jar's")
          .isTrue();
    }
    assertThat(ApplicationClassLoader.conflicts(jar, ClassLoader.getPlatformClassLoader()))
        .as("a library cryo does not have is no conflict").isEmpty();
  }
}

package dev.cryo.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guide's project built as a user builds it, outside cryo's reactor: a folder holding the
 * guide's pom (its {@code xml} block, as it is) and the guide's sources (this module's
 * {@code com.example} files), built with {@code mvn verify} against cryo-app as the guide's install
 * command put it in a local repository — a new, empty one, not the build's.
 *
 * <p>The machine may have no network, so both builds run offline, with one remote allowed: the
 * build's own local repository, read through a {@code file://} mirror (Maven writes nothing
 * there). The new repository thus ends up holding only what the two builds needed: cryo-app and
 * cryo's parent pom, as installed by the guide's command, and the plugins and libraries copied
 * from the mirror. The first build runs the guide's install command in this checkout: it rebuilds
 * cryo-app's jar in {@code cryo-app/target} (the same classes) and installs it and cryo's parent
 * pom into the new repository. Last, the project's jar is served as the guide serves it, by the
 * cryo command's jar ({@code cryo serve --app com.example.notes.Notes --app-path notes.jar}, one
 * worker), and used over HTTP.
 */
@Timeout(300)
class GuideProjectTest {

  /** The install command the guide gives, run here as it is written. */
  static final String INSTALL = "./mvnw -pl cryo-app -am install -DskipTests";

  @TempDir Path scratch;

  @Test
  void theGuidesProjectBuildsAndPassesItsTestsAgainstTheInstalledCryoApp() throws Exception {
    Path root = Guide.root();
    String guide = Files.readString(Guide.file());
    assertThat(guide).as("the guide gives the install command this test runs").contains(INSTALL);
    String pom = Guide.pom();
    String version = System.getProperty("cryo.guide.version");
    assertThat(pom).as("the guide's pom names this version of cryo-app")
        .contains("<cryo.version>" + version + "</cryo.version>");

    Path repository = Files.createDirectories(scratch.resolve("repository"));
    Path settings = settings(Path.of(System.getProperty("cryo.guide.shared.repository",
        System.getProperty("user.home") + "/.m2/repository")));

    // the guide's install command, in this checkout, into the new repository
    List<String> install = new ArrayList<>(List.of(INSTALL.split(" ")));
    install.set(0, root.resolve("mvnw").toString());
    maven(root, settings, repository, install, "install");
    assertThat(repository.resolve("dev/cryo/cryo-app/" + version + "/cryo-app-" + version
        + ".jar")).isRegularFile();

    // the guide's project, in a folder of its own
    Path project = Files.createDirectories(scratch.resolve("notes"));
    Files.writeString(project.resolve("pom.xml"), pom);
    copy(Guide.module().resolve("src/main"), project.resolve("src/main"));
    copy(Guide.module().resolve("src/test/java/com"), project.resolve("src/test/java/com"));
    maven(project, settings, repository, List.of(root.resolve("mvnw").toString(), "verify"),
        "verify");

    Path jar = project.resolve("target/notes.jar");
    assertThat(jar).as("the jar the guide gives cryo serve").isRegularFile();
    try (JarFile opened = new JarFile(jar.toFile())) {
      assertThat(opened.getEntry("com/example/notes/Notes.class")).isNotNull();
      assertThat(opened.getEntry("com/example/notes/index.html")).isNotNull();
      assertThat(opened.stream().map(e -> e.getName()))
          .as("the application's jar carries nothing of cryo's or Jackson's")
          .noneMatch(name -> name.startsWith("dev/cryo/") || name.startsWith("com/fasterxml/"));
    }
    Path report = project.resolve("target/surefire-reports/TEST-com.example.notes.NotesTest.xml");
    assertThat(report).as("the guide's tests ran").isRegularFile();
    assertThat(Files.readString(report)).contains("tests=\"5\"", "failures=\"0\"",
        "errors=\"0\"");

    // and the jar runs as the guide runs it: cryo serve --app CLASS --app-path JAR
    assertThat(guide).contains(SERVE);
    serveAndUse(jar);
  }

  /** The guide's command to run the application, as it is written. */
  static final String SERVE = "java -jar cryo-cli/target/cryo.jar serve"
      + " --app com.example.notes.Notes --app-path notes/target/notes.jar";

  /**
   * Serves {@code jar} with the cryo command's jar, one worker, on any free port, and uses it as a
   * browser's script would: a page, a note, the notes read back.
   */
  private void serveAndUse(Path jar) throws Exception {
    Path cryo = Path.of(System.getProperty("cryo.guide.cli.jar",
        "../../cryo-cli/target/cryo.jar"));
    assertThat(cryo).as("the cryo command's jar, built before this module").isRegularFile();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"),
        "bin", "java").toString(), "-jar", cryo.toString(), "serve"));
    command.addAll(List.of(SERVE.substring(SERVE.indexOf("--app ")).split(" ")));
    command.set(command.size() - 1, jar.toString());
    command.addAll(List.of("--home", scratch.resolve("home").toString(), "--port", "0",
        "--workers", "1", "--worker-heap", "256m"));
    Path out = scratch.resolve("serve-out.txt");
    Process serve = new ProcessBuilder(command)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(out.toFile()).redirectError(scratch.resolve("serve-err.txt").toFile())
        .start();
    try {
      URI base = awaitUrl(serve, out);
      HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
      HttpResponse<String> page = send(http, base, "GET", "/", null);
      assertThat(page.body()).contains("<script src=\"/_cryo/cryo.js\"></script>");
      assertThat(send(http, base, "POST", "/api/pages", null).body()).contains("\"page\"");
      assertThat(send(http, base, "POST", "/api/notes", "{\"text\":\"served\"}").statusCode())
          .isEqualTo(200);
      assertThat(send(http, base, "GET", "/api/notes", null).body())
          .contains("\"text\":\"served\"");
    } finally {
      List<ProcessHandle> all = new ArrayList<>(serve.descendants().toList());
      serve.destroy();
      serve.waitFor(20, TimeUnit.SECONDS);
      serve.destroyForcibly();
      all.addAll(serve.descendants().toList());
      all.forEach(ProcessHandle::destroyForcibly);
    }
  }

  private static HttpResponse<String> send(HttpClient http, URI base, String method, String path,
      String json) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
        .timeout(Duration.ofSeconds(60));
    request.method(method, json == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(json));
    if (json != null) {
      request.header("Content-Type", "application/json");
    }
    HttpResponse<String> response = http.send(request.build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(method + " " + path + ": " + response.body())
        .isLessThan(300);
    return response;
  }

  private URI awaitUrl(Process serve, Path out) throws Exception {
    Pattern url = Pattern.compile("cryo serves (http://[^ ]+/)");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      Matcher matcher = url.matcher(Files.readString(out));
      if (matcher.find()) {
        return URI.create(matcher.group(1));
      }
      if (!serve.isAlive() || System.nanoTime() - deadline > 0) {
        throw new AssertionError("cryo serve printed no URL (alive: " + serve.isAlive()
            + "); stderr: " + Files.readString(scratch.resolve("serve-err.txt")));
      }
      Thread.sleep(20);
    }
  }

  /** Settings whose one mirror, for every repository, is {@code shared}, read as a remote. */
  private Path settings(Path shared) throws IOException {
    assertThat(shared).as("the build's local repository").isDirectory();
    return Files.writeString(scratch.resolve("settings.xml"), """
        <settings>
          <mirrors>
            <mirror>
              <id>build-repository</id>
              <mirrorOf>*</mirrorOf>
              <url>%s</url>
            </mirror>
          </mirrors>
        </settings>
        """.formatted(shared.toAbsolutePath().toUri()));
  }

  /**
   * Runs Maven in {@code directory}: offline but for {@code file://} remotes, with
   * {@code settings} and {@code repository}; fails with its output unless it succeeds.
   */
  private void maven(Path directory, Path settings, Path repository, List<String> command,
      String name) throws Exception {
    List<String> full = new ArrayList<>(command.subList(0, 1));
    full.addAll(List.of("-B", "-o", "-Daether.offline.protocols=file", "-s", settings.toString(),
        "-Dmaven.repo.local=" + repository));
    full.addAll(command.subList(1, command.size()));
    Path log = scratch.resolve(name + ".log");
    ProcessBuilder builder = new ProcessBuilder(full).directory(directory.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().remove("MAVEN_ARGS");
    builder.environment().remove("MAVEN_OPTS");
    Process maven = builder.start();
    if (!maven.waitFor(240, TimeUnit.SECONDS)) {
      maven.descendants().forEach(ProcessHandle::destroyForcibly);
      maven.destroyForcibly();
      throw new AssertionError(String.join(" ", full) + " did not end within 240 s; its output: "
          + Files.readString(log));
    }
    assertThat(maven.exitValue()).as(String.join(" ", full) + " in " + directory
        + " failed; its output:\n" + Files.readString(log)).isZero();
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path source : walk.toList()) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }
}

package dev.cryo.app;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLConnection;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serves an application's static resources — the files of its jar (or classpath) under the
 * folders it mounted with {@link Routes#staticResources} — without a user: no turn is entered, no
 * state is read, no hook runs. For hosts (the worker's application host, the test kit), which
 * serve a request of a mounted prefix here instead of through the routes, before any user is
 * resolved; applications never use it.
 *
 * <h2>What a request gets</h2>
 *
 * <ul>
 *   <li>{@code GET} or {@code HEAD} of {@code PREFIX/rest} reads the resource {@code FOLDER/rest}
 *       through the application's class loader: {@code 200} with its bytes, a
 *       {@code Content-Type} from its extension (text types in UTF-8;
 *       {@code application/octet-stream} when unknown), a strong {@code ETag} (a digest of the
 *       content), {@code Cache-Control: public, max-age=N} (the mount's) and
 *       {@code X-Content-Type-Options: nosniff}. A {@code HEAD} has no body.
 *   <li>An {@code If-None-Match} naming the current tag (or {@code *}): {@code 304}, no body.
 *   <li>Another method: {@code 405 method_not_allowed} with {@code Allow: GET, HEAD}.
 *   <li>No such resource, or a folder ({@code PREFIX}, {@code PREFIX/}, {@code PREFIX/sub/}, a
 *       name that is a folder of the jar): {@code 404 not_found}.
 *   <li>A path that tries to leave the folder or hide its shape — a segment {@code .} or
 *       {@code ..}, an empty segment, a backslash, a control character, a {@code %} (an encoding
 *       left after the front decoded the path once: {@code %2F}) or a {@code :} —:
 *       {@code 400 bad_path}. Nothing outside the mounted folder is ever read.
 * </ul>
 *
 * <p>Every refusal is the JSON error body of the routes ({@code {"error": ..., "message": ...}}).
 *
 * <p>Content read is kept in memory (the jar does not change while it is served): up to
 * {@value #MAX_CACHED_BYTES} bytes in all, files over {@value #MAX_CACHED_FILE} bytes never.
 *
 * <p>Thread-safe.
 */
public final class StaticResources {

  /** The {@code max-age} of a mount declared without one: ten minutes, as cryo's own script. */
  public static final Duration DEFAULT_MAX_AGE = Duration.ofMinutes(10);

  static final long MAX_CACHED_BYTES = 32L * 1024 * 1024;
  static final long MAX_CACHED_FILE = 4L * 1024 * 1024;

  /** One folder mounted under a URL prefix. */
  record Mount(String prefix, String folder, Duration maxAge) {}

  private record Content(byte[] bytes, String etag, String type) {}

  private static final Map<String, String> TYPES = Map.ofEntries(
      Map.entry("html", "text/html; charset=utf-8"), Map.entry("htm", "text/html; charset=utf-8"),
      Map.entry("css", "text/css; charset=utf-8"),
      Map.entry("js", "text/javascript; charset=utf-8"),
      Map.entry("mjs", "text/javascript; charset=utf-8"),
      Map.entry("json", "application/json"), Map.entry("map", "application/json"),
      Map.entry("txt", "text/plain; charset=utf-8"), Map.entry("csv", "text/csv; charset=utf-8"),
      Map.entry("xml", "application/xml"), Map.entry("svg", "image/svg+xml"),
      Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"),
      Map.entry("jpeg", "image/jpeg"), Map.entry("gif", "image/gif"),
      Map.entry("webp", "image/webp"), Map.entry("avif", "image/avif"),
      Map.entry("ico", "image/x-icon"), Map.entry("woff", "font/woff"),
      Map.entry("woff2", "font/woff2"), Map.entry("ttf", "font/ttf"),
      Map.entry("otf", "font/otf"), Map.entry("wasm", "application/wasm"),
      Map.entry("pdf", "application/pdf"), Map.entry("webmanifest", "application/manifest+json"));

  private final List<Mount> mounts;
  private final ClassLoader loader;
  private final ConcurrentHashMap<String, Content> cache = new ConcurrentHashMap<>();
  private final AtomicLong cached = new AtomicLong();

  StaticResources(List<Mount> mounts, ClassLoader loader) {
    this.mounts = List.copyOf(mounts);
    this.loader = Objects.requireNonNull(loader, "loader");
  }

  /** The mounted URL prefixes, in declaration order (each starts with {@code /}, no trailing one). */
  public List<String> prefixes() {
    List<String> out = new ArrayList<>();
    for (Mount mount : mounts) {
      out.add(mount.prefix());
    }
    return List.copyOf(out);
  }

  /** Whether {@code path} is under a mounted prefix: the prefix itself or below it. */
  public boolean covers(String path) {
    return mountOf(path) != null;
  }

  /** Whether {@code path} is under one of {@code prefixes} (as {@link #covers} for a host's copy). */
  public static boolean covers(List<String> prefixes, String path) {
    if (path == null) {
      return false;
    }
    for (String prefix : prefixes) {
      if (path.equals(prefix) || path.startsWith(prefix + "/")) {
        return true;
      }
    }
    return false;
  }

  private Mount mountOf(String path) {
    if (path == null) {
      return null;
    }
    Mount best = null;
    for (Mount mount : mounts) { // the longest prefix wins
      if ((path.equals(mount.prefix()) || path.startsWith(mount.prefix() + "/"))
          && (best == null || mount.prefix().length() > best.prefix().length())) {
        best = mount;
      }
    }
    return best;
  }

  /**
   * Serves {@code request}, whose path is under a mounted prefix; see the class comment.
   *
   * @return the reply, never null
   * @throws IllegalArgumentException when the path is under no mounted prefix
   */
  public Response serve(Request request) {
    Mount mount = mountOf(request.path());
    if (mount == null) {
      throw new IllegalArgumentException(request.path() + " is under no static prefix");
    }
    String method = request.method();
    boolean head = method.equals("HEAD");
    if (!head && !method.equals("GET")) {
      return Dispatcher.error(405, "method_not_allowed", mount.prefix() + " serves static files,"
          + " read with GET or HEAD, not " + method + "; nothing was done")
          .withHeader("Allow", "GET, HEAD");
    }
    String rest = request.path().substring(mount.prefix().length());
    if (rest.isEmpty() || rest.equals("/") || rest.endsWith("/")) {
      return notFound(request.path(), "it names a folder, and folders are not listed");
    }
    String problem = problemOf(rest.substring(1));
    if (problem != null) {
      return Dispatcher.error(400, "bad_path", "the path " + request.path() + " " + problem
          + "; nothing was read: ask for a file under " + mount.prefix() + "/ by its plain name");
    }
    Content content;
    try {
      content = read(mount.folder() + rest.substring(1));
    } catch (IOException e) {
      return Dispatcher.error(500, "unreadable_resource", "the static file " + request.path()
          + " could not be read; nothing was sent: try again, or tell the operator");
    }
    if (content == null) {
      return notFound(request.path(), "there is no such file");
    }
    String cacheControl = "public, max-age=" + mount.maxAge().toSeconds();
    if (matches(request.header("If-None-Match"), content.etag())) {
      return Response.empty(304).withHeader("ETag", content.etag())
          .withHeader("Cache-Control", cacheControl);
    }
    return Response.bytes(200, content.type(), head ? null : content.bytes())
        .withHeader("ETag", content.etag())
        .withHeader("Cache-Control", cacheControl)
        .withHeader("X-Content-Type-Options", "nosniff");
  }

  private static Response notFound(String path, String why) {
    return Dispatcher.error(404, "not_found", "no static file at " + path + ": " + why);
  }

  /** Why {@code rest} (the path below the prefix, no leading slash) is refused, or null. */
  static String problemOf(String rest) {
    for (int i = 0; i < rest.length(); i++) {
      char c = rest.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        return "holds a control character";
      }
      if (c == '\\' || c == '%' || c == ':') {
        return "holds '" + c + "', which a file's name here never does";
      }
    }
    for (String segment : rest.split("/", -1)) {
      if (segment.isEmpty()) {
        return "has an empty segment";
      }
      if (segment.equals(".") || segment.equals("..")) {
        return "has a segment '" + segment + "'";
      }
    }
    return null;
  }

  /** The content of resource {@code name}, or null when there is none or it is a folder. */
  private Content read(String name) throws IOException {
    Content known = cache.get(name);
    if (known != null) {
      return known;
    }
    URL url = loader.getResource(name);
    if (url == null) {
      return null;
    }
    byte[] bytes;
    URLConnection connection = url.openConnection();
    connection.setUseCaches(false); // a jar's cached handle would outlive a reload's jar
    if (isFolder(name, url, connection)) {
      return null;
    }
    try (InputStream in = connection.getInputStream()) {
      bytes = in.readAllBytes();
    }
    Content content = new Content(bytes, "\"" + digest(bytes) + "\"", typeOf(name));
    if (bytes.length <= MAX_CACHED_FILE
        && cached.addAndGet(bytes.length) <= MAX_CACHED_BYTES) {
      cache.putIfAbsent(name, content);
    }
    return content;
  }

  /** Whether the resource {@code name} found at {@code url} is a folder, which is not served. */
  private boolean isFolder(String name, URL url, URLConnection connection) throws IOException {
    if (connection instanceof java.net.JarURLConnection jar) {
      java.util.jar.JarEntry entry = jar.getJarEntry(); // a folder's entry is found without '/'
      return entry == null || entry.isDirectory();
    }
    if ("file".equals(url.getProtocol())) {
      try {
        return !java.nio.file.Files.isRegularFile(java.nio.file.Path.of(url.toURI()));
      } catch (java.net.URISyntaxException | IllegalArgumentException e) {
        return true; // a file URL that names no path: not served
      }
    }
    return loader.getResource(name + "/") != null;
  }

  /** The {@code Content-Type} of a resource named {@code name}. */
  static String typeOf(String name) {
    int slash = name.lastIndexOf('/');
    int dot = name.lastIndexOf('.');
    if (dot > slash) {
      String type = TYPES.get(name.substring(dot + 1).toLowerCase(Locale.ROOT));
      if (type != null) {
        return type;
      }
    }
    String guessed = URLConnection.guessContentTypeFromName(name);
    return guessed != null ? guessed : "application/octet-stream";
  }

  /** Whether an {@code If-None-Match} names {@code etag} (weakly compared) or is {@code *}. */
  private static boolean matches(String ifNoneMatch, String etag) {
    if (ifNoneMatch == null) {
      return false;
    }
    for (String tag : ifNoneMatch.split(",")) {
      String trimmed = tag.trim();
      if (trimmed.startsWith("W/")) {
        trimmed = trimmed.substring(2);
      }
      if (trimmed.equals("*") || trimmed.equals(etag)) {
        return true;
      }
    }
    return false;
  }

  private static String digest(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}

package dev.cryo.chaos.check;

import dev.cryo.chaos.history.Entry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The run as one picture an operator looks at first: a self-contained HTML file (inline SVG and
 * style; no script, no external style, font or image) that is also well-formed XML. Time runs left
 * to right in bins of one second (wider for runs past 1,200 s). It shows:
 * <ul>
 *   <li>throughput: completions per second, {@code ok}, {@code fail} and {@code info} stacked in
 *       three colours;
 *   <li>latency of the {@code ok} operations completed in each bin, p50 and p99, on a log scale;
 *   <li>the fault windows shaded across both panels and labelled by kind (their grace lighter);
 *   <li>the anomalies as red ticks above, each with a tooltip naming its kind and register;
 *   <li>the verdict's text below.
 * </ul>
 */
public final class Timeline {

  /** At most this many bins: a longer run gets wider bins. */
  static final int MAX_BINS = 1200;
  /** At most this many anomaly ticks are drawn. */
  static final int MAX_MARKERS = 2000;

  private static final int LEFT = 80;
  private static final int PLOT_WIDTH = 1200;
  private static final int WIDTH = LEFT + PLOT_WIDTH + 30;
  private static final int STRIP_TOP = 50;
  private static final int STRIP_HEIGHT = 24;
  private static final int THROUGHPUT_TOP = 110;
  private static final int PANEL_HEIGHT = 220;
  private static final int LATENCY_TOP = THROUGHPUT_TOP + PANEL_HEIGHT + 50;
  private static final int BOTTOM = LATENCY_TOP + PANEL_HEIGHT;
  private static final int HEIGHT = BOTTOM + 50;
  private static final String OK_COLOUR = "#43a047";
  private static final String FAIL_COLOUR = "#fb8c00";
  private static final String INFO_COLOUR = "#8e24aa";
  private static final String P50_COLOUR = "#1e88e5";
  private static final String P99_COLOUR = "#0d1b5e";
  private static final String ANOMALY_COLOUR = "#d50000";

  private final Operations operations;
  private final Verdict verdict;
  private final double binSeconds;
  private final int bins;
  private final StringBuilder svg = new StringBuilder(1 << 16);

  private Timeline(Operations operations, Verdict verdict) {
    this.operations = operations;
    this.verdict = verdict;
    double runSeconds = Math.max(1, Math.ceil(operations.endT / 1e9));
    this.binSeconds = Math.max(1, Math.ceil(runSeconds / MAX_BINS));
    this.bins = (int) Math.max(1, Math.ceil(runSeconds / binSeconds));
  }

  /**
   * Writes the timeline of {@code history} with the anomalies of {@code verdict} to {@code file}
   * (replaced if it exists).
   *
   * @throws IllegalArgumentException when the history does not pair up (as in
   *     {@link Checker#check})
   */
  public static void write(List<Entry> history, Verdict verdict, Path file) throws IOException {
    Files.writeString(file, html(history, verdict), StandardCharsets.UTF_8);
  }

  /** The timeline's HTML. */
  static String html(List<Entry> history, Verdict verdict) {
    Timeline timeline = new Timeline(Operations.of(history), verdict);
    timeline.draw();
    StringBuilder page = new StringBuilder(timeline.svg.length() + 8192);
    String headline = verdict.valid() ? "VALID" : "INVALID: " + verdict.anomalyCount()
        + " anomalies";
    page.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>")
        .append("<title>cryo-chaos: ").append(escape(headline)).append("</title>")
        .append("<style>body{font-family:sans-serif;margin:16px;color:#212121}")
        .append("h1{font-size:20px}.valid{color:#2e7d32}.invalid{color:#c62828}")
        .append("pre{font-size:12px;background:#f5f5f5;padding:8px}")
        .append("svg text{font-family:sans-serif;font-size:11px}</style></head><body>\n")
        .append("<h1 class=\"").append(verdict.valid() ? "valid" : "invalid").append("\">")
        .append(escape(headline)).append("</h1>\n<p>")
        .append(escape(format("%,d operations, %,d users, %,d pages, %.1f s; bins of %.0f s",
            verdict.operationCount(), verdict.users(), verdict.pages(), verdict.runSeconds(),
            timeline.binSeconds)))
        .append("</p>\n").append(timeline.svg).append("\n<pre>")
        .append(escape(verdict.text())).append("</pre>\n</body></html>\n");
    return page.toString();
  }

  private void draw() {
    svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH)
        .append("\" height=\"").append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH)
        .append(' ').append(HEIGHT).append("\">\n");
    svg.append("<rect x=\"0\" y=\"0\" width=\"").append(WIDTH).append("\" height=\"")
        .append(HEIGHT).append("\" fill=\"#ffffff\"/>\n");
    legend();
    faults();
    throughput();
    latency();
    anomalies();
    timeAxis();
    svg.append("</svg>");
  }

  private void legend() {
    String[][] items = {{OK_COLOUR, "ok"}, {FAIL_COLOUR, "fail"}, {INFO_COLOUR, "info"},
        {P50_COLOUR, "latency p50"}, {P99_COLOUR, "latency p99"}, {"#9e9e9e", "fault window"},
        {ANOMALY_COLOUR, "anomaly"}};
    int x = LEFT;
    for (String[] item : items) {
      svg.append(format("<rect x=\"%d\" y=\"14\" width=\"12\" height=\"12\" fill=\"%s\"/>"
          + "<text x=\"%d\" y=\"24\">%s</text>%n", x, item[0], x + 16, escape(item[1])));
      x += 30 + item[1].length() * 7;
    }
  }

  private void faults() {
    long grace = verdict.grace().toNanos();
    for (FaultWindow fault : operations.faults) {
      double start = x(fault.startT() / 1e9);
      double end = x((fault.open() ? operations.endT : fault.endT()) / 1e9);
      double graceEnd = fault.open() ? end
          : x(Math.min(operations.endT, fault.endT() + grace) / 1e9);
      String title = escape(format("%s from %.1f s to %s%s", fault.kind(), fault.startT() / 1e9,
          fault.open() ? "the end (never ended)" : format("%.1f s", fault.endT() / 1e9),
          fault.detail() == null ? "" : ": " + fault.detail()));
      svg.append(format("<g class=\"fault\"><title>%s</title>", title));
      if (graceEnd > end) {
        svg.append(format("<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\""
            + " fill=\"#9e9e9e\" fill-opacity=\"0.08\"/>", end, STRIP_TOP, graceEnd - end,
            BOTTOM - STRIP_TOP));
      }
      svg.append(format("<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#9e9e9e\""
          + " fill-opacity=\"0.25\"/>", start, STRIP_TOP, Math.max(1, end - start),
          BOTTOM - STRIP_TOP));
      svg.append(format("<text x=\"%.1f\" y=\"%d\" fill=\"#424242\">%s</text></g>%n", start + 2,
          THROUGHPUT_TOP - 6, escape(fault.kind())));
    }
  }

  private void throughput() {
    long[][] counts = new long[3][bins];
    for (Operation operation : operations.all) {
      if (operation.completion() == null) {
        continue;
      }
      int series = switch (operation.outcome()) {
        case Entry.OK -> 0;
        case Entry.FAIL -> 1;
        default -> 2;
      };
      counts[series][bin(operation.completeT())]++;
    }
    double highest = 1;
    for (int b = 0; b < bins; b++) {
      highest = Math.max(highest, (counts[0][b] + counts[1][b] + counts[2][b]) / binSeconds);
    }
    double top = niceCeiling(highest);
    panelFrame(THROUGHPUT_TOP, "completions per second");
    for (int tick = 0; tick <= 4; tick++) {
      double value = top * tick / 4;
      double y = THROUGHPUT_TOP + PANEL_HEIGHT - PANEL_HEIGHT * value / top;
      axisLabel(y, format(value >= 10 ? "%.0f" : "%.1f", value));
    }
    String[] colours = {OK_COLOUR, FAIL_COLOUR, INFO_COLOUR};
    double width = (double) PLOT_WIDTH / bins;
    for (int b = 0; b < bins; b++) {
      double base = 0;
      for (int series = 0; series < 3; series++) {
        double rate = counts[series][b] / binSeconds;
        if (rate > 0) {
          double height = PANEL_HEIGHT * rate / top;
          double y = THROUGHPUT_TOP + PANEL_HEIGHT - PANEL_HEIGHT * base / top - height;
          svg.append(format("<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\""
              + " fill=\"%s\"/>", LEFT + b * width, y, width, height, colours[series]));
          base += rate;
        }
      }
    }
    svg.append('\n');
  }

  private void latency() {
    long[][] latencies = new long[bins][];
    int[] sizes = new int[bins];
    for (Operation operation : operations.all) {
      if (!operation.isOk()) {
        continue;
      }
      int b = bin(operation.completeT());
      if (latencies[b] == null) {
        latencies[b] = new long[16];
      } else if (sizes[b] == latencies[b].length) {
        latencies[b] = Arrays.copyOf(latencies[b], sizes[b] * 2);
      }
      latencies[b][sizes[b]++] = Math.max(1_000, operation.completeT() - operation.invokeT());
    }
    double[] p50 = new double[bins];
    double[] p99 = new double[bins];
    double lowest = Double.MAX_VALUE;
    double highest = 0;
    for (int b = 0; b < bins; b++) {
      if (sizes[b] == 0) {
        continue;
      }
      long[] sorted = Arrays.copyOf(latencies[b], sizes[b]);
      Arrays.sort(sorted);
      p50[b] = percentile(sorted, 0.50) / 1e6;
      p99[b] = percentile(sorted, 0.99) / 1e6;
      lowest = Math.min(lowest, p50[b]);
      highest = Math.max(highest, p99[b]);
    }
    panelFrame(LATENCY_TOP, "ok latency per bin, ms (log scale)");
    if (highest == 0) {
      return;
    }
    int low = (int) Math.floor(Math.log10(lowest));
    int high = Math.max(low + 1, (int) Math.ceil(Math.log10(highest)));
    for (int decade = low; decade <= high; decade++) {
      double y = latencyY(Math.pow(10, decade), low, high);
      svg.append(format("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eeeeee\"/>",
          LEFT, y, LEFT + PLOT_WIDTH, y));
      axisLabel(y, decade >= 3 ? format("%.0f s", Math.pow(10, decade - 3))
          : format(decade >= 0 ? "%.0f ms" : "%s ms", Math.pow(10, decade)));
    }
    latencyLine(p50, low, high, P50_COLOUR, "p50");
    latencyLine(p99, low, high, P99_COLOUR, "p99");
  }

  private void latencyLine(double[] values, int low, int high, String colour, String name) {
    StringBuilder path = new StringBuilder();
    double width = (double) PLOT_WIDTH / bins;
    boolean drawing = false;
    for (int b = 0; b < bins; b++) {
      if (values[b] <= 0) {
        drawing = false;
        continue;
      }
      path.append(drawing ? " L" : " M").append(format("%.2f %.2f", LEFT + (b + 0.5) * width,
          latencyY(values[b], low, high)));
      drawing = true;
    }
    if (!path.isEmpty()) {
      svg.append(format("<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\">"
          + "<title>latency %s</title></path>%n", path.toString().trim(), colour, name));
    }
  }

  private void anomalies() {
    svg.append(format("<text x=\"%d\" y=\"%d\" text-anchor=\"end\">anomalies</text>", LEFT - 6,
        STRIP_TOP + 16));
    svg.append(format("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\""
        + " stroke=\"#bdbdbd\"/>%n", LEFT, STRIP_TOP, PLOT_WIDTH, STRIP_HEIGHT));
    List<Anomaly> anomalies = verdict.anomalies();
    int drawn = Math.min(MAX_MARKERS, anomalies.size());
    for (int i = 0; i < drawn; i++) {
      Anomaly anomaly = anomalies.get(i);
      double x = x(anomaly.at());
      svg.append(format("<line class=\"anomaly\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\""
          + " stroke=\"%s\" stroke-width=\"2\"><title>%s</title></line>%n", x, STRIP_TOP, x,
          STRIP_TOP + STRIP_HEIGHT, ANOMALY_COLOUR, escape(format("%s %s at %.3f s: %s",
          anomaly.kind(), anomaly.register(), anomaly.at(), anomaly.explanation()))));
    }
    if (verdict.anomalyCount() > drawn) {
      svg.append(format("<text x=\"%d\" y=\"%d\" fill=\"%s\">the first %d of %d anomalies"
          + " drawn</text>%n", LEFT, STRIP_TOP - 6, ANOMALY_COLOUR, drawn,
          verdict.anomalyCount()));
    }
  }

  private void timeAxis() {
    double span = bins * binSeconds;
    double step = 1;
    for (double candidate : new double[] {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
        3600, 7200, 14400}) {
      step = candidate;
      if (span / candidate <= 12) {
        break;
      }
    }
    for (double second = 0; second <= span; second += step) {
      double x = x(second);
      svg.append(format("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#757575\"/>"
          + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f s</text>%n", x, BOTTOM, x,
          BOTTOM + 5, x, BOTTOM + 18, second));
    }
    svg.append(format("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">seconds since the run"
        + " began</text>%n", LEFT + PLOT_WIDTH / 2, BOTTOM + 36));
  }

  private void panelFrame(int top, String title) {
    svg.append(format("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\""
        + " stroke=\"#bdbdbd\"/><text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n", LEFT,
        top, PLOT_WIDTH, PANEL_HEIGHT, LEFT, top - 22, escape(title)));
  }

  private void axisLabel(double y, String label) {
    svg.append(format("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", LEFT - 6,
        y + 4, escape(label)));
  }

  private double latencyY(double millis, int low, int high) {
    double fraction = (Math.log10(millis) - low) / (high - low);
    return LATENCY_TOP + PANEL_HEIGHT - PANEL_HEIGHT * fraction;
  }

  private int bin(long t) {
    return (int) Math.min(bins - 1, Math.max(0, (long) (t / 1e9 / binSeconds)));
  }

  private double x(double second) {
    double span = bins * binSeconds;
    return LEFT + PLOT_WIDTH * Math.min(1, Math.max(0, second / span));
  }

  private static long percentile(long[] sorted, double quantile) {
    int index = (int) Math.ceil(quantile * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  private static double niceCeiling(double value) {
    double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
    for (double step : new double[] {1, 2, 2.5, 5, 10}) {
      if (step * magnitude >= value) {
        return step * magnitude;
      }
    }
    return 10 * magnitude;
  }

  /** Text for XML: the five special characters escaped, control characters dropped. */
  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> {
          if (c >= 0x20 || c == '\n' || c == '\t') {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }

  private static String format(String pattern, Object... arguments) {
    return String.format(Locale.ROOT, pattern, arguments);
  }
}

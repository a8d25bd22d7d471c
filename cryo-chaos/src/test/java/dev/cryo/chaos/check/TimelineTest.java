package dev.cryo.chaos.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.chaos.history.Entry;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The timeline: written, well-formed, self-contained, showing faults and anomalies. */
class TimelineTest {

  @TempDir
  Path directory;

  private static Document parse(String html) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    return factory.newDocumentBuilder()
        .parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void showsFaultsAndAnomaliesInOneWellFormedSelfContainedFile() throws Exception {
    Scenario scenario = new Scenario();
    List<Entry> planted = Entries.withCompletion(scenario.run.history(),
        scenario.lastReadOfAnna.op, "counter", 0);
    Verdict verdict = Checker.check(planted, scenario.run.eventLog(), Checker.DEFAULT_GRACE);
    Path file = directory.resolve("timeline.html");
    Timeline.write(planted, verdict, file);

    String html = Files.readString(file);
    Document document = parse(html);
    assertThat(document.getElementsByTagName("svg").getLength()).isEqualTo(1);
    assertThat(html).contains("<svg").contains(">kill_worker</text>");
    NodeList lines = document.getElementsByTagName("line");
    int markers = 0;
    for (int i = 0; i < lines.getLength(); i++) {
      Element line = (Element) lines.item(i);
      if ("anomaly".equals(line.getAttribute("class"))) {
        markers++;
        assertThat(line.getTextContent()).startsWith("LOST_WRITE anna");
      }
    }
    assertThat(markers).isEqualTo(1);
    Matcher references = Pattern.compile("https?://[^\"' )<>]*").matcher(html);
    while (references.find()) {
      assertThat(references.group()).isEqualTo("http://www.w3.org/2000/svg");
    }
    assertThat(html).doesNotContain("<script").doesNotContain("<link").doesNotContain("@import")
        .doesNotContain("url(");
    assertThat(html).contains("INVALID").contains(">ok</text>").contains(">fail</text>")
        .contains(">info</text>").contains("latency p50").contains("latency p99");
  }

  @Test
  void aValidRunHasNoMarkerAndAnEmptyHistoryStillDraws() throws Exception {
    Scenario scenario = new Scenario();
    Verdict verdict = scenario.run.check();
    String html = Timeline.html(scenario.run.history(), verdict);
    parse(html);
    assertThat(html).doesNotContain("class=\"anomaly\"").contains("VALID");

    Verdict empty = Checker.check(List.of(), EventLog.empty(), Checker.DEFAULT_GRACE);
    Path file = directory.resolve("empty.html");
    Timeline.write(List.of(), empty, file);
    parse(Files.readString(file));
  }

  @Test
  void textIsEscaped() {
    assertThat(Timeline.escape("<a href=\"x\">&'\u0001</a>"))
        .isEqualTo("&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  }
}

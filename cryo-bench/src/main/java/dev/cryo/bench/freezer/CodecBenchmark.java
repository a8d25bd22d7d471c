package dev.cryo.bench.freezer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.smile.databind.SmileMapper;
import dev.cryo.freezer.CborCodec;
import dev.cryo.freezer.SmileCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The codec alone: encode + decode of the whole realistic user ({@link RealisticUser#whole}) in one
 * thread, per second — cryo's {@link SmileCodec} (the default) and {@link CborCodec} beside JDK serialisation ({@code ObjectOutputStream}
 * of the same {@code HashMap}/{@code ArrayList} tree, what Tomcat's store uses), and the alternatives
 * considered for the default: Jackson JSON (plain {@code ObjectMapper}, untyped), Jackson Smile (the
 * same untyped mapping) and Apache Fory (class registration required, only the JDK collections
 * registered, no reference tracking). {@link #main} prints the encoded sizes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CodecBenchmark {

  private final HashMap<String, Object> payload = RealisticUser.whole();
  private final SmileCodec smileCodec = new SmileCodec();
  private final CborCodec cbor = new CborCodec();
  private final ObjectMapper json = new ObjectMapper();
  private final ObjectMapper smile = new SmileMapper();
  private final Fory fory = newFory();

  private static Fory newFory() {
    Fory fory = Fory.builder().withLanguage(Language.JAVA).requireClassRegistration(true)
        .withRefTracking(false).build();
    fory.register(HashMap.class);
    fory.register(LinkedHashMap.class);
    fory.register(ArrayList.class);
    return fory;
  }

  /** cryo's default codec, streaming Smile. */
  @Benchmark
  public Object smile() throws IOException {
    return smileCodec.decode(smileCodec.encode(payload));
  }

  /** cryo's CBOR codec, streaming. */
  @Benchmark
  public Object cbor() throws IOException {
    return cbor.decode(cbor.encode(payload));
  }

  /** JDK serialisation. */
  @Benchmark
  public Object jdkSerialization() throws IOException, ClassNotFoundException {
    return jdkDecode(jdkEncode(payload));
  }

  /** Jackson JSON. */
  @Benchmark
  public Object jacksonJson() throws IOException {
    return json.readValue(json.writeValueAsBytes(payload), Object.class);
  }

  /** Jackson Smile. */
  @Benchmark
  public Object jacksonSmile() throws IOException {
    return smile.readValue(smile.writeValueAsBytes(payload), Object.class);
  }

  /** Apache Fory, class registration required. */
  @Benchmark
  public Object fory() {
    return fory.deserialize(fory.serialize(payload));
  }

  static byte[] jdkEncode(Object value) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    try (ObjectOutputStream objects = new ObjectOutputStream(out)) {
      objects.writeObject(value);
    }
    return out.toByteArray();
  }

  static Object jdkDecode(byte[] bytes) throws IOException, ClassNotFoundException {
    try (ObjectInputStream objects = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      return objects.readObject();
    }
  }

  /** The encoded size of the payload in each format, in bytes: smile and cbor (cryo), jdk, json, smile, fory. */
  public long[] sizes() throws IOException {
    return new long[] {smileCodec.encode(payload).length, cbor.encode(payload).length, jdkEncode(payload).length,
        json.writeValueAsBytes(payload).length, smile.writeValueAsBytes(payload).length,
        fory.serialize(payload).length};
  }

  /** Prints the encoded sizes. */
  public static void main(String[] args) throws IOException {
    long[] sizes = new CodecBenchmark().sizes();
    System.out.printf("payload bytes: smile (cryo) %d, cbor (cryo) %d, jdk serialization %d,"
        + " jackson json %d, jackson smile %d, fory %d%n", sizes[0], sizes[1], sizes[2], sizes[3],
        sizes[4], sizes[5]);
  }
}

package dev.cryo.bench.freezer;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.freezer.CborCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The codec alone: encode + decode of the whole realistic user ({@link RealisticUser#whole}) in one
 * thread, per second — cryo's {@link CborCodec} beside JDK serialisation ({@code ObjectOutputStream}
 * of the same {@code HashMap}/{@code ArrayList} tree, what Tomcat's store uses) and Jackson JSON
 * (plain {@code ObjectMapper}, untyped). {@link #main} prints the encoded sizes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CodecBenchmark {

  private final HashMap<String, Object> payload = RealisticUser.whole();
  private final CborCodec cbor = new CborCodec();
  private final ObjectMapper json = new ObjectMapper();

  /** cryo's default codec. */
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

  /** The encoded size of the payload in each format, in bytes: cbor, jdk, json. */
  public long[] sizes() throws IOException {
    return new long[] {cbor.encode(payload).length, jdkEncode(payload).length,
        json.writeValueAsBytes(payload).length};
  }

  /** Prints the encoded sizes. */
  public static void main(String[] args) throws IOException {
    long[] sizes = new CodecBenchmark().sizes();
    System.out.printf("payload bytes: cbor %d, jdk serialization %d, jackson json %d%n",
        sizes[0], sizes[1], sizes[2]);
  }
}

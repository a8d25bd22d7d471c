package dev.cryo.front;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The budget of new visitors per address: its text, its buckets, and the bound of its table. */
class NewVisitorGateTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private static InetAddress address(String text) throws Exception {
    return InetAddress.getByName(text);
  }

  @Test
  void theOptionReadsRateAndBurstOrOff() {
    assertThat(NewVisitorBudget.parse("20/100")).isEqualTo(NewVisitorBudget.DEFAULT);
    assertThat(NewVisitorBudget.parse("off").off()).isTrue();
    assertThat(NewVisitorBudget.parse("5")).isEqualTo(new NewVisitorBudget(5, 25));
    assertThat(NewVisitorBudget.parse("0.5/3")).isEqualTo(new NewVisitorBudget(0.5, 3));
    assertThat(NewVisitorBudget.parse(NewVisitorBudget.DEFAULT.toString()))
        .isEqualTo(NewVisitorBudget.DEFAULT);
    for (String bad : new String[] {"0/10", "-1/5", "20/0", "twenty", "20/", "NaN/3", ""}) {
      assertThatThrownBy(() -> NewVisitorBudget.parse(bad)).as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void anAddressSpendsItsBurstThenGetsItsRateAndAnotherAddressItsOwn() throws Exception {
    NewVisitorGate gate = new NewVisitorGate(new NewVisitorBudget(2, 3), 100, now::get);
    InetAddress one = address("192.0.2.1");
    for (int i = 0; i < 3; i++) {
      assertThat(gate.charge(one)).isZero();
    }
    assertThat(gate.charge(one)).as("past the burst: a second to wait").isEqualTo(1);
    assertThat(gate.charge(address("192.0.2.2"))).as("another address").isZero();
    now.addAndGet(500_000_000L); // half a second: one token at 2 a second
    assertThat(gate.charge(one)).isZero();
    assertThat(gate.charge(one)).isEqualTo(1);
    assertThat(gate.refused()).isEqualTo(2);
  }

  @Test
  void anIpv6HostCountsByItsSlash64() throws Exception {
    NewVisitorGate gate = new NewVisitorGate(new NewVisitorBudget(1, 2), 100, now::get);
    assertThat(gate.charge(address("2001:db8:1:2::1"))).isZero();
    assertThat(gate.charge(address("2001:db8:1:2::ffff"))).isZero();
    assertThat(gate.charge(address("2001:db8:1:2:abcd::7"))).as("the same /64").isPositive();
    assertThat(gate.charge(address("2001:db8:1:3::1"))).as("another /64").isZero();
  }

  @Test
  void theTableStaysBoundedAndAddressesPastItShareOneBucket() throws Exception {
    NewVisitorGate gate = new NewVisitorGate(new NewVisitorBudget(1, 2), 4, now::get);
    for (int i = 1; i <= 4; i++) {
      assertThat(gate.charge(address("198.51.100." + i))).isZero();
    }
    assertThat(gate.addresses()).isEqualTo(4);
    // The table is full of buckets still spent: new addresses share the overflow's 2 tokens.
    assertThat(gate.charge(address("198.51.100.5"))).isZero();
    assertThat(gate.charge(address("198.51.100.6"))).isZero();
    assertThat(gate.charge(address("198.51.100.7"))).as("no fresh burst per address").isPositive();
    assertThat(gate.addresses()).isEqualTo(4);

    now.addAndGet(5_000_000_000L); // every bucket full again: the eldest makes room
    for (int i = 10; i < 30; i++) {
      assertThat(gate.charge(address("203.0.113." + i))).isZero();
      now.addAndGet(2_000_000_000L);
    }
    assertThat(gate.addresses()).isEqualTo(4);
  }

  @Test
  void offAdmitsEverybodyAndRemembersNobody() throws Exception {
    NewVisitorGate gate = new NewVisitorGate(NewVisitorBudget.OFF, 4, now::get);
    for (int i = 0; i < 1000; i++) {
      assertThat(gate.charge(address("192.0.2.9"))).isZero();
    }
    assertThat(gate.addresses()).isZero();
  }
}

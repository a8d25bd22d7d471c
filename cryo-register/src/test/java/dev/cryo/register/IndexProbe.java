package dev.cryo.register;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

/** Reads a register's internals, under its structure lock, to check its indexes against its rows. */
final class IndexProbe {

  private IndexProbe() {}

  /** Every row is filed under its value of every indexed field, and nothing else is filed. */
  static void assertAgrees(Register<?> register) {
    Lock read = register.structure().read();
    read.lock();
    try {
      assertAgreesLocked(register);
    } finally {
      read.unlock();
    }
  }

  /** As {@link #assertAgrees}, for a caller holding the structure lock (it is not re-entrant). */
  static void assertAgreesLocked(Register<?> register) {
    {
      for (String field : register.indexedFields()) {
        Index index = register.indexLocked(field);
        for (Row row : register.rowsLocked()) {
          assertThat(index.contains(row.find(field), row.key()))
              .as("%s: row %s filed under its %s = %s", register.name(), row.key(), field,
                  row.find(field))
              .isTrue();
        }
        AtomicInteger filed = new AtomicInteger();
        index.forEachEntry((value, key) -> filed.incrementAndGet());
        assertThat(filed.get()).as("%s: entries of index %s", register.name(), field)
            .isEqualTo(register.rowsLocked().size());
      }
    }
  }

  static int bucketCount(Register<?> register, String field) {
    Lock read = register.structure().read();
    read.lock();
    try {
      return register.indexLocked(field).bucketCount();
    } finally {
      read.unlock();
    }
  }
}

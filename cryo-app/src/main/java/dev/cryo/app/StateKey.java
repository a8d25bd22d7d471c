package dev.cryo.app;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The name a state class is stored under, when its simple name will not do: two state classes with
 * the same simple name, or a class renamed by a new version that must read what the old one wrote.
 * A name is non-empty and holds no {@code '.'}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface StateKey {
  /** The name, unique among the application's state classes. */
  String value();
}

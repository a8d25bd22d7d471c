package dev.cryo.app;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The name a state class is stored under, when its simple name will not do: two state classes with
 * the same simple name, or a class renamed by a new version that must read what the old one wrote.
 * A name is non-empty and holds no {@code '.'} and no {@code '@'}.
 *
 * <p>A class without one is stored under its simple name, and the class that wrote each value is
 * recorded beside it: another class of the same simple name (in another package, or nested in
 * another class) is refused, with {@link StateException.Reason#BAD_STATE_CLASS}, in whichever
 * instance of the application the user is woken — it never reads the first one's value as its own
 * (nor writes over it). A class with a {@code @StateKey} is not recorded: the name is its identity,
 * so a renamed or moved class that keeps it reads what the old one wrote.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface StateKey {
  /** The name, unique among the application's state classes. */
  String value();
}

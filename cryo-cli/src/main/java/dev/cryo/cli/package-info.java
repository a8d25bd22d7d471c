/**
 * The {@code cryo} command: drives cryo's building blocks from the shell, without writing Java.
 *
 * <p>One class per command: {@link dev.cryo.cli.Cryo} is the root and the jar's entry point,
 * {@link dev.cryo.cli.LockCommand} groups {@code cryo lock run}, {@code status} and {@code break},
 * {@link dev.cryo.cli.FreezerCommand} groups {@code cryo freezer ls}, {@code show} and {@code df}.
 * Commands are declared with picocli; their help texts are their documentation, mirrored in
 * {@code docs/cli.md}.
 *
 * <p>Rules of the package: a command never prints a stack trace unless asked ({@code --verbose} or
 * {@code CRYO_DEBUG}); every refusal is one line, {@code cryo CMD: REASON_CODE: message}, on
 * standard error, with an exit code from {@link dev.cryo.cli.ExitCodes} (sysexits values) or one
 * the command documents; machine-readable output ({@code --json}) keeps stable field names; and the
 * commands do their work through the public API of the building blocks, never around it.
 */
package dev.cryo.cli;

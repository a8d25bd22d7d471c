package dev.cryo.lock;

import java.nio.file.Files;

/**
 * For the tests of cryo-control: a real failure right after {@link Publication}'s link, through its
 * package-private seam. The temporary's name is taken by a non-empty directory, so that its
 * removal fails.
 */
public final class PublicationFaults implements AutoCloseable {

  private PublicationFaults() {}

  /** Until closed, every publication's temporary cannot be removed after the link. */
  public static PublicationFaults temporaryCannotBeRemoved() {
    Publication.afterLink = (target, temporary) -> {
      Files.move(temporary, temporary.resolveSibling(temporary.getFileName() + "-moved-away"));
      Files.createDirectories(temporary.resolve("in-the-way"));
    };
    return new PublicationFaults();
  }

  @Override
  public void close() {
    Publication.afterLink = Publication.NO_SEAM;
  }
}

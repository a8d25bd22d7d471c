package dev.cryo.control;

/** What kind of file system entry stands at a name, as an error message names it. */
public enum EntryKind {
  /** A regular file. */
  REGULAR_FILE("a regular file"),
  /** A directory. */
  DIRECTORY("a directory"),
  /** A symbolic link (never followed). */
  SYMBOLIC_LINK("a symbolic link"),
  /** A named pipe. */
  FIFO("a FIFO"),
  /** A Unix domain socket. */
  SOCKET("a socket"),
  /** A character device. */
  CHARACTER_DEVICE("a character device"),
  /** A block device. */
  BLOCK_DEVICE("a block device"),
  /** Anything else, or a special file whose type could not be told. */
  SPECIAL_FILE("a special file");

  private final String description;

  EntryKind(String description) {
    this.description = description;
  }

  /** The kind with its article, for messages: "a symbolic link", "a FIFO". */
  public String description() {
    return description;
  }

  /** The kind of a POSIX {@code st_mode}. */
  public static EntryKind ofMode(int mode) {
    return switch (mode & 0170000) {
      case 0100000 -> REGULAR_FILE;
      case 0040000 -> DIRECTORY;
      case 0120000 -> SYMBOLIC_LINK;
      case 0010000 -> FIFO;
      case 0140000 -> SOCKET;
      case 0020000 -> CHARACTER_DEVICE;
      case 0060000 -> BLOCK_DEVICE;
      default -> SPECIAL_FILE;
    };
  }
}

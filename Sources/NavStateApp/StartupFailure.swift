#if canImport(Glibc)
  import Glibc
#endif

/// Why the server could not start, with the exit status that tells a script why (sysexits(3)
/// numbering). A bad command line is a usage error and gets the usage text from
/// ArgumentParser; everything here happens after the options were understood, so it is one line
/// on standard error and no usage text.
public struct StartupFailure: Error, CustomStringConvertible {
  public enum Status: Int32, CaseIterable, Sendable {
    /// The options contradict each other (64, EX_USAGE), e.g. `--default-graph` names no graph.
    case usage = 64
    /// A graph file is not valid JSON or not a valid graph, the data directory's snapshot is
    /// damaged, or PostgreSQL's schema is newer than this server's (65, EX_DATAERR).
    case badData = 65
    /// A graph file cannot be opened or read, the data directory cannot be used, or PostgreSQL
    /// cannot be reached (66, EX_NOINPUT).
    case cannotOpenInput = 66
    /// The address or port cannot be listened on (69, EX_UNAVAILABLE).
    case portUnavailable = 69
    /// Anything else the system refused (71, EX_OSERR).
    case systemError = 71
  }

  public var status: Status
  public var message: String

  public var description: String { message }

  /// The text of `--help` that lists the statuses, so the two cannot drift apart.
  public static let exitStatusHelp = """
    Exit status: 0 after a graceful stop; 64 a usage error (bad options); 65 a graph file \
    that is not valid JSON or not a valid graph, a damaged snapshot in --data-dir, or a \
    --postgres database whose schema is newer than this server's; 66 a graph file that \
    cannot be read, a --data-dir that cannot be used, or a --postgres database that cannot \
    be reached; 69 the address or port cannot be listened on; 71 another system error.
    """

  package func writeToStandardError() {
    let line = Array("navstate: \(message)\n".utf8)
    line.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }

  /// The system's own words for an errno value.
  package static func reason(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
  }
}

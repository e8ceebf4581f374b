import Synchronization

/// How many event streams are open with each share's token, by session: the state's
/// `watching`. Kept as streams open and close (only share streams touch it), so that a read of
/// a session with thousands of streams counts nothing.
package final class ShareWatchers: Sendable {
  private let counts = Mutex<[SessionID: [String: Int]]>([:])

  package init() {}

  package func opened(_ session: SessionID, share: String) {
    counts.withLock { counts in counts[session, default: [:]][share, default: 0] += 1 }
  }

  package func closed(_ session: SessionID, share: String) {
    counts.withLock { counts in
      let left = (counts[session]?[share] ?? 1) - 1
      counts[session]?[share] = left > 0 ? left : nil
      if counts[session]?.isEmpty == true { counts[session] = nil }
    }
  }

  /// Open streams by share id.
  package func watching(_ session: SessionID) -> [String: Int] {
    counts.withLock { counts in counts[session] ?? [:] }
  }
}

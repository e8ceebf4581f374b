import Synchronization

/// Keeps a flood of one kind of warning (a thousand refused connections) from flooding the log:
/// per kind, the first message of each interval is written, the rest are counted, and one line
/// with the count follows when the interval is over. So no client can make the log grow faster
/// than two lines per kind per interval.
public final class LogThrottle<Kind: Hashable & Sendable>: Sendable {
  public let intervalSeconds: Double
  private let windows = Mutex<[Kind: Window]>([:])

  private struct Window {
    var started: Double
    var suppressed: Int
  }

  public init(intervalSeconds: Double = 10) {
    self.intervalSeconds = intervalSeconds
  }

  /// Whether a message of `kind` arriving at `now` (seconds) is written. When it opens a new
  /// interval, the count of the previous one's suppressed messages comes with it.
  public func admit(_ kind: Kind, now: Double) -> (write: Bool, suppressedBefore: Int) {
    windows.withLock { windows in
      if var window = windows[kind], now - window.started < intervalSeconds {
        window.suppressed += 1
        windows[kind] = window
        return (false, 0)
      }
      let previous = windows[kind]?.suppressed ?? 0
      windows[kind] = Window(started: now, suppressed: 0)
      return (true, previous)
    }
  }

  /// The counts of intervals that are over, for a periodic flush; they are reset.
  public func expired(now: Double) -> [(kind: Kind, suppressed: Int)] {
    windows.withLock { windows in
      var result: [(kind: Kind, suppressed: Int)] = []
      for (kind, window) in windows where now - window.started >= intervalSeconds {
        if window.suppressed > 0 { result.append((kind, window.suppressed)) }
        windows[kind] = nil
      }
      return result
    }
  }
}

import NavStateWire

/// How sessions outlive the process, as the application sees it: restored before the server
/// listens, kept by duties while it runs, finished after it stopped. The data directory
/// (NavStatePersistence) is one; ``InMemoryDurability`` keeps nothing.
public protocol SessionDurability: Sendable {
  /// Reads what was kept into `store`, and from then on keeps every change it accepts (by
  /// attaching a ``SessionStorage``).
  func restore(into store: SessionStore) throws(DurabilityFailure) -> RestoreSummary
  /// What must run now and then while the server runs (flushes, snapshots).
  func duties(for store: SessionStore) -> [Duty]
  /// After the server stopped, so that no request changes a session meanwhile: the last
  /// snapshot and flush. Returns what went wrong, to be logged.
  func finish(_ store: SessionStore) -> [String]
}

/// Work on a timer of its own, off the request threads.
public struct Duty: Sendable {
  public var label: String
  /// Seconds between runs.
  public var interval: Double
  /// One run; returns what went wrong, to be logged, or nil.
  public var run: @Sendable () -> String?

  public init(label: String, interval: Double, run: @escaping @Sendable () -> String?) {
    self.label = label
    self.interval = interval
    self.run = run
  }
}

/// What a restore read back, for the start-up log.
public struct RestoreSummary: Sendable {
  public var sessions: Int
  /// Records applied on top of the last snapshot.
  public var replayed: Int
  /// Where it was read from, for the log (a directory, a database).
  public var source: String
  /// Something dropped or repaired that an operator should know of (a torn last record).
  public var warnings: [String]

  public init(sessions: Int, replayed: Int, source: String, warnings: [String] = []) {
    self.sessions = sessions
    self.replayed = replayed
    self.source = source
    self.warnings = warnings
  }
}

/// Why sessions could not be restored; `kind` decides the exit status.
public struct DurabilityFailure: Error, CustomStringConvertible, Sendable {
  public enum Kind: Sendable {
    /// What holds the sessions cannot be opened or used (another server owns it).
    case cannotOpen
    /// It belongs to a server started otherwise (another `--node`).
    case usage
    /// What it holds is damaged or of an unknown format.
    case badData
  }

  public var kind: Kind
  public var message: String
  public var description: String { message }

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }
}

/// Sessions kept in memory only: they end with the process.
public struct InMemoryDurability: SessionDurability {
  public init() {}

  public func restore(into store: SessionStore) -> RestoreSummary {
    RestoreSummary(sessions: 0, replayed: 0, source: "memory")
  }

  public func duties(for store: SessionStore) -> [Duty] { [] }

  public func finish(_ store: SessionStore) -> [String] { [] }
}

extension SessionStore {
  /// The engine's own duties: ending idle sessions and dropping idle encodings, and the
  /// streams' heartbeats. Each looks for due work a few times per period, so none is more than
  /// a quarter period late.
  public var duties: [Duty] {
    let ttl = configuration.sessionTTLSeconds
    let heartbeat = configuration.heartbeatSeconds
    let feedDuties = feedDuty.map { [$0] } ?? []
    return feedDuties + [
      Duty(label: "navstate.expiry", interval: min(1, max(0.05, ttl / 4))) { [self] in
        let now = Timestamp.now()
        expireIdle(now: now)
        dropIdleCaches(now: now)
        return nil
      },
      Duty(label: "navstate.heartbeat", interval: min(1, max(0.05, heartbeat / 4))) { [self] in
        sendHeartbeats(now: .now())
        return nil
      },
      // Presence at most once a second per session: looked for ten times a second, so that a
      // watcher shows within a tenth of a second of its second. Shares expire on the tick.
      Duty(label: "navstate.shares", interval: 0.1) { [self] in
        let now = Timestamp.now()
        sendPresence(now: now)
        expireShares(now: now)
        return nil
      },
    ]
  }
}

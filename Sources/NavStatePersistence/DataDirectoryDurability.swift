public import NavStateEngine
import Synchronization

/// `--data-dir` as the application sees it (``SessionDurability``): opening the directory (its
/// lock, its node name) and restoring its sessions, a snapshot every `snapshotInterval` seconds,
/// the `everysec` flush, and at the end the last snapshot and flush.
public final class DataDirectoryDurability: SessionDurability {
  public let path: String
  public let fsync: Journal.SyncPolicy
  /// Seconds between snapshots (0: only the one a stop writes).
  public let snapshotInterval: Double
  /// The `--node` name the server runs under, checked against the directory's.
  public let node: String?
  /// The directory once ``restore(into:)`` opened it.
  private let opened = Mutex<DataDirectory?>(nil)

  public init(path: String, fsync: Journal.SyncPolicy, snapshotInterval: Double, node: String?) {
    self.path = path
    self.fsync = fsync
    self.snapshotInterval = snapshotInterval
    self.node = node
  }

  public func restore(into store: SessionStore) throws(DurabilityFailure) -> RestoreSummary {
    let directory: DataDirectory
    let claim: DataDirectory.NodeClaim
    do {
      directory = try DataDirectory(path: path)
      claim = try directory.claim(node: node)
    } catch {
      throw DurabilityFailure(.cannotOpen, error.description)
    }
    if case .other(let recorded) = claim {
      let started = recorded.map { "--node \($0)" } ?? "no --node"
      let restart = recorded.map { "start it with --node \($0)" } ?? "start it without --node"
      throw DurabilityFailure(
        .usage,
        "the data directory \(path) holds the sessions of a server started with \(started) (every id it issued says so); \(restart), or give this node a directory of its own"
      )
    }
    let loaded: DataDirectory.Loaded
    do {
      loaded = try directory.load(into: store, journal: fsync)
    } catch {
      throw DurabilityFailure(.badData, error.description)
    }
    opened.withLock { $0 = directory }
    return RestoreSummary(
      sessions: loaded.sessions, replayed: loaded.replayed, source: path,
      warnings: loaded.warning.map { [$0] } ?? [])
  }

  public func duties(for store: SessionStore) -> [Duty] {
    guard let directory = opened.withLock({ $0 }) else { return [] }
    var duties: [Duty] = []
    if snapshotInterval > 0 {
      duties.append(
        Duty(label: "navstate.snapshot", interval: snapshotInterval) {
          Self.snapshot(store, to: directory)
        })
    }
    // Each second: the flush of `everysec`, and, after a flush failed (changes are refused
    // until a snapshot holds what it may have lost), a snapshot at once, whatever the interval.
    if let journal = directory.journal {
      duties.append(
        Duty(label: "navstate.fsync", interval: 1) {
          if journal.policy == .everysec { journal.syncIfWritten() }
          return journal.needsSnapshot ? Self.snapshot(store, to: directory) : nil
        })
    }
    return duties
  }

  public func finish(_ store: SessionStore) -> [String] {
    guard let directory = opened.withLock({ $0 }) else { return [] }
    var problems: [String] = []
    if let failure = Self.snapshot(store, to: directory) { problems.append(failure) }
    if let failure = directory.journal?.finish() {
      problems.append("journal not flushed at stop: \(failure)")
    }
    return problems
  }

  private static func snapshot(_ store: SessionStore, to directory: DataDirectory) -> String? {
    do {
      try directory.saveSnapshot(of: store)
      return nil
    } catch {
      return "snapshot failed: \(error.description)"
    }
  }
}

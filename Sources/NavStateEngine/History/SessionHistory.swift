package import NavStateWire
package import NavigationCore

/// Every version a session went through, newest `limit` kept: who made it, when, and what it
/// was, in a compact binary form (one buffer, so an idle session pays one allocation), with the
/// states needed to read any kept version back by replaying from the nearest one before it.
///
/// The state at the oldest stored version is the first checkpoint or, while version 1 is still
/// stored, built again from the creation entry. Every ``checkpointInterval`` versions a copy of the state is
/// kept, so that a version is at most that many replays away. The oldest versions go in
/// chunks, from one checkpoint to the next, so that dropping them replays nothing: the buffer
/// holds up to `limit + checkpointInterval` entries, of which the newest `limit` are shown.
package struct SessionHistory: Sendable {
  /// Who caused a version (`by`).
  package enum Author: UInt8, Sendable {
    case client = 0
    case backend = 1
    case server = 2
  }

  /// What made a version.
  package enum Change: Sendable, Equatable {
    /// Version 1: the session started at `root` (nil: its graph's root) with `context`.
    case create(graphVersion: Int, root: RouteRequest?, context: SessionContext)
    case command(Command)
    /// Moved to a newer version of its graph.
    case migrate(from: Int, to: Int)
    /// The session was kept by a server that kept no history: it starts here.
    case unrecorded
    /// Version 1 of a fork: a copy of `session` at `version` (its state is kept beside).
    case fork(session: String, version: Int)
  }

  package struct Entry: Sendable, Equatable {
    package var version: Int
    package var at: Timestamp
    package var by: Author
    package var change: Change

    package init(version: Int, at: Timestamp, by: Author, change: Change) {
      self.version = version
      self.at = at
      self.by = by
      self.change = change
    }
  }

  private struct Checkpoint: Sendable {
    /// The state right after `version`.
    var state: NavigationState
    var version: Int
    /// Where `version`'s entry starts in `bytes`.
    var offset: Int
    /// What the state is counted for in the memory budget, about what a session's tree costs.
    let cost: Int

    init(state: NavigationState, version: Int, offset: Int) {
      self.state = state
      self.version = version
      self.offset = offset
      cost =
        256 + state.coordinators.count * 160 + state.coordinators.paramTextBytes
        + state.guardingFootprint
    }
  }

  package static let checkpointInterval = 64

  /// The entries, oldest first: version, time, author, change.
  package private(set) var bytes: [UInt8] = []
  /// The version of the first entry in `bytes` (0: none yet).
  package private(set) var oldestStored = 0
  package private(set) var newest = 0
  /// Kept states, oldest first; once version 1 is gone, the first is that of `oldestStored`.
  private var checkpoints: [Checkpoint] = [] {
    didSet {
      checkpointBytes = UInt32(clamping: checkpoints.reduce(0) { $0 + $1.cost })
    }
  }
  // The two small members last, so that the history takes 37 bytes and a session's data fits
  // its block (SessionLayoutTests).
  /// What the checkpoints are counted for, kept as they change (``footprint`` is read at every
  /// change of every session). A session's states stay far below 4 GiB (its limits).
  private var checkpointBytes: UInt32 = 0
  /// Who made the newest version (a store writes it with the change).
  package private(set) var newestAuthor = Author.client

  package init() {}

  /// A history read back from a store: `bytes` as ``bytes`` held them, and the state at their
  /// first entry unless that is the creation. (Its checkpoints come back as versions are made.)
  package init?(restoring bytes: [UInt8], base: NavigationState?) {
    var reader = ByteReader(bytes, at: 0)
    guard let first = Self.read(&reader) else {
      guard bytes.isEmpty else { return nil }
      return
    }
    var last = first.version
    var end = reader.offset
    while let entry = Self.read(&reader) {
      guard entry.version == last + 1 else { return nil }
      last = entry.version
      end = reader.offset
    }
    guard end == bytes.count else { return nil }
    if case .create = first.change {
      guard base == nil else { return nil }
    } else {
      guard let base, base.version == first.version else { return nil }
      checkpoints = [Checkpoint(state: base, version: first.version, offset: 0)]
    }
    self.bytes = bytes
    oldestStored = first.version
    newest = last
  }

  /// The history of a session whose store kept none: it starts at `state`, now.
  package init(startingAt state: NavigationState, at time: Timestamp) {
    append(
      Entry(version: state.version, at: time, by: .server, change: .unrecorded), state: state,
      limit: Int.max)
    checkpoints = [Checkpoint(state: state, version: state.version, offset: 0)]
  }

  /// The history of a fork: it starts at `state` (version 1), copied from `origin`.
  package init(
    forkedAt state: NavigationState, from origin: ForkOrigin, at time: Timestamp, by author: Author
  ) {
    append(
      Entry(
        version: state.version, at: time, by: author,
        change: .fork(session: origin.session, version: origin.version)),
      state: state, limit: Int.max)
    checkpoints = [Checkpoint(state: state, version: state.version, offset: 0)]
  }

  /// The state the stored entries start from, when that is not the creation (for a store).
  package var base: NavigationState? {
    guard let first = checkpoints.first, first.version == oldestStored, first.offset == 0 else {
      return nil
    }
    return first.state
  }

  /// The oldest version shown when `limit` are (`--history-versions`); 0 before the first.
  package func oldest(limit: Int) -> Int {
    guard newest > 0 else { return 0 }
    return max(oldestStored, newest - max(1, limit) + 1)
  }

  /// Bytes held, for the memory budget: the entries, and every kept state at about what a
  /// session's tree costs.
  package var footprint: Int {
    bytes.capacity + Int(checkpointBytes)
  }

  /// Appends version `entry.version` (the next one); `state` is the session's state right
  /// after it, kept when the version is due a checkpoint.
  package mutating func append(_ entry: Entry, state: NavigationState, limit: Int) {
    dropOldChunk(limit: max(1, limit))
    if bytes.isEmpty {
      oldestStored = entry.version
      // The creation and a first change or two in one allocation, rather than growing 16, 32,
      // 64 (every session has a history: its first bytes are paid a million times).
      bytes.reserveCapacity(64)
    }
    let offset = bytes.count
    Self.append(entry, to: &bytes)
    newest = entry.version
    newestAuthor = entry.by
    if entry.version % Self.checkpointInterval == 0 {
      checkpoints.append(Checkpoint(state: state, version: entry.version, offset: offset))
    }
  }

  /// Takes back the newest entry (its change was undone).
  package mutating func removeNewest() {
    guard newest > oldestStored else { return }
    var reader = ByteReader(bytes, at: 0)
    var start = 0
    while let entry = Self.read(&reader), entry.version < newest { start = reader.offset }
    bytes.removeSubrange(start...)
    if checkpoints.last?.version == newest { checkpoints.removeLast() }
    newest -= 1
  }

  /// Once more than `limit + checkpointInterval` entries are held, the oldest go up to the
  /// newest checkpoint that still leaves `limit` shown, which is kept as the oldest state.
  private mutating func dropOldChunk(limit: Int) {
    guard newest > 0, newest - oldestStored + 1 - Self.checkpointInterval >= limit else { return }
    let firstShown = newest + 1 - limit + 1
    guard let index = checkpoints.lastIndex(where: { $0.version <= firstShown }),
      checkpoints[index].version > oldestStored
    else { return }
    let kept = checkpoints[index]
    oldestStored = kept.version
    bytes.removeSubrange(..<kept.offset)
    checkpoints.removeSubrange(..<index)
    for position in checkpoints.indices { checkpoints[position].offset -= kept.offset }
  }

  /// The entries after `after`, at most `limit`, oldest first, from those shown.
  package func entries(after: Int, count: Int, limit: Int) -> [Entry] {
    var result: [Entry] = []
    let first = max(after + 1, oldest(limit: limit))
    guard first <= newest, count > 0 else { return result }
    var reader = ByteReader(bytes, at: startOffset(of: first))
    while result.count < count, let entry = Self.read(&reader) {
      if entry.version >= first { result.append(entry) }
    }
    return result
  }

  /// Where `version`'s entry starts, found from the nearest checkpoint before it.
  private func startOffset(of version: Int) -> Int {
    var reader = ByteReader(bytes, at: 0)
    if let checkpoint = checkpoints.last(where: { $0.version <= version }) {
      reader = ByteReader(bytes, at: checkpoint.offset)
    }
    var start = reader.offset
    while let entry = Self.read(&reader) {
      if entry.version >= version { return start }
      start = reader.offset
    }
    return start
  }

  /// The state right after `version` (one of those shown), replayed from the nearest kept state
  /// before it; `graphs` gives a graph version (for the creation and migrations) and `limits`
  /// are the session's. Nil when a replay fails, which a session's own history never should.
  package func state(
    at version: Int, graphs: (String, Int) -> RouteGraph?,
    graphPath: (String, Int, Int) -> [RouteGraph],
    limits: NavigationLimits, graphName: String, limit: Int
  ) -> NavigationState? {
    guard version >= oldest(limit: limit), version <= newest else { return nil }
    var state: NavigationState
    var reader: ByteReader
    if let checkpoint = checkpoints.last(where: { $0.version <= version }) {
      state = checkpoint.state
      reader = ByteReader(bytes, at: checkpoint.offset)
      _ = Self.read(&reader)
    } else {
      reader = ByteReader(bytes, at: 0)
      guard let first = Self.read(&reader),
        case .create(let graphVersion, let root, let context) = first.change,
        let graph = graphs(graphName, graphVersion),
        let started = try? NavigationState.start(
          graph: graph, root: root, context: context, limits: limits)
      else { return nil }
      state = started.0
    }
    while state.version < version, let entry = Self.read(&reader) {
      guard Self.replay(entry.change, on: &state, graphPath: graphPath),
        state.version == entry.version
      else { return nil }
    }
    return state.version == version ? state : nil
  }

  /// Replays the entries after `version` onto `state` (the state right after `version`),
  /// handing each entry and the state after it to `body`; stops at the first that fails.
  package func replay(
    after version: Int, from state: NavigationState,
    graphPath: (String, Int, Int) -> [RouteGraph],
    _ body: (Entry, NavigationState) -> Void
  ) {
    var state = state
    var reader = ByteReader(bytes, at: startOffset(of: version + 1))
    while let entry = Self.read(&reader) {
      guard entry.version > version else { continue }
      guard Self.replay(entry.change, on: &state, graphPath: graphPath),
        state.version == entry.version
      else { return }
      body(entry, state)
    }
  }

  /// Applies a stored change to `state` again.
  package static func replay(
    _ change: Change, on state: inout NavigationState,
    graphPath: (String, Int, Int) -> [RouteGraph]
  ) -> Bool {
    switch change {
    case .create, .unrecorded, .fork:
      return false
    case .command(let command):
      return (try? state.apply(command)) != nil
    case .migrate(let from, let to):
      let path = graphPath(state.graph.name, from, to)
      guard state.graphVersion == from, path.last?.version == to else { return false }
      let context = state.context
      let isOpen: (Route) -> Bool =
        path.last.map { target in
          target.hasGuards ? { target.isOpen($0.name, in: context) } : { _ in true }
        } ?? { _ in true }
      guard let migrated = try? state.migrated(through: path, isOpen: isOpen) else {
        return false
      }
      state = migrated.0
      return true
    }
  }
}

package import NavJSON
import NavStateWire
import NavigationCore
import Synchronization

/// A session's history read back: its entries, its state at a kept version, and a restore of
/// that version's path as a new change.
extension SessionStore {
  /// `{version, oldest, entries}`: the entries after version `after`, at most `limit`.
  /// A follow share reads each entry through ``FollowView``.
  package func history(
    of record: SessionRecord, after: Int, limit: Int, viewer: Viewer = .owner
  ) throws(EngineRefusal) -> JSONWriter {
    let past = try past(of: record)
    let kept = configuration.historyVersions
    var writer = JSONWriter(capacity: 256 + min(limit, 100) * 96)
    writer.beginObject()
    writer.key("version")
    writer.int(past.navigation.version)
    writer.key("oldest")
    writer.int(past.history.oldest(limit: kept))
    writer.key("entries")
    writer.beginArray()
    for entry in past.history.entries(after: after, count: limit, limit: kept) {
      guard viewer.follows else {
        Self.writeEntry(entry, into: &writer)
        continue
      }
      var owned = JSONWriter(capacity: 256)
      Self.writeEntry(entry, into: &owned)
      writer.raw(FollowView.filter(json: owned.bytes, in: past.navigation.graph))
    }
    writer.endArray()
    writer.endObject()
    return writer
  }

  /// One entry as `{version, at, by, op}`.
  package static func writeEntry(_ entry: SessionHistory.Entry, into writer: inout JSONWriter) {
    writer.beginObject()
    writeEntryMembers(entry, into: &writer)
    writer.endObject()
  }

  static func writeEntryMembers(_ entry: SessionHistory.Entry, into writer: inout JSONWriter) {
    writer.key("version")
    writer.int(entry.version)
    writer.key("at")
    entry.at.withRFC3339 { writer.plainString($0) }
    writer.key("by")
    writer.string(entry.by.name)
    writer.key("op")
    switch entry.change {
    case .command(let command):
      CommandJSON.writeOp(command, into: &writer)
    case .migrate(let from, let to):
      writer.beginObject()
      writer.key("op")
      writer.plainString("migrate")
      writer.key("from")
      writer.int(from)
      writer.key("to")
      writer.int(to)
      writer.endObject()
    case .fork(let session, let version):
      writer.beginObject()
      writer.key("op")
      writer.plainString("fork")
      writer.key("session")
      writer.string(session)
      writer.key("version")
      writer.int(version)
      writer.endObject()
    case .create, .unrecorded:
      writer.beginObject()
      writer.key("op")
      writer.string(entry.change.name)
      writer.endObject()
    }
  }

  /// The state right after `version`, as a GET answered it then (`version: V`, `updatedAt` the
  /// time of that version).
  /// Its `shares` are those of that version, as `viewer` sees them.
  package func state(of record: SessionRecord, at version: Int, viewer: Viewer = .owner)
    throws(EngineRefusal) -> EncodedAnswer
  {
    let past = try past(of: record)
    let (state, at) = try Self.kept(
      version, of: past, catalog: catalog, configuration: configuration)
    var writer = JSONWriter(capacity: 1024)
    StateJSON.writeState(
      state, id: record.id,
      times: SessionTimes(createdAt: record.createdAt, updatedAt: at, expiresAt: past.expiresAt),
      // The shares as they stood at that version, watched by nobody then as far as it knows.
      shares: SharesView(shares: state.shares, only: viewer.share, now: at.milliseconds),
      into: &writer)
    guard viewer.follows else { return EncodedAnswer(version: version, body: writer) }
    var followed = JSONWriter(capacity: writer.bytes.count)
    followed.raw(FollowView.filter(json: writer.bytes, in: state.graph))
    return EncodedAnswer(version: version, body: followed)
  }

  /// What reading a session's past takes, copied under its lock (copy-on-write: no bytes are
  /// copied), so that replays run with the lock let go and the session's changes go on.
  struct Past {
    var history: SessionHistory
    var navigation: NavigationState
    var updatedAt: Timestamp
    var expiresAt: Timestamp
  }

  /// The session's past, after the checks of any call.
  func past(of record: SessionRecord) throws(EngineRefusal) -> Past {
    try record.data.withLock { (data) throws(EngineRefusal) -> Past in
      try call(record, &data)
      return Past(
        history: data.history, navigation: data.navigation, updatedAt: data.updatedAt,
        expiresAt: data.expiresAt)
    }
  }

  /// The state at a kept version and its time, or why there is none.
  static func kept(
    _ version: Int, of data: Past, catalog: GraphCatalog, configuration: StoreConfiguration
  ) throws(EngineRefusal) -> (NavigationState, Timestamp) {
    let history = data.history
    let oldest = history.oldest(limit: configuration.historyVersions)
    guard version >= 1, version <= data.navigation.version else {
      throw EngineRefusal.invalidVersion(current: data.navigation.version)
    }
    guard version >= oldest else { throw EngineRefusal.historyExpired(oldest: oldest) }
    if version == data.navigation.version {
      return (data.navigation, data.updatedAt)
    }
    guard
      let state = history.state(
        at: version, graphs: { catalog.graph($0, version: $1) },
        graphPath: { catalog.versions(of: $0, after: $1, upTo: $2) },
        limits: configuration.limits, graphName: data.navigation.graph.name,
        limit: configuration.historyVersions),
      let entry = history.entries(
        after: version - 1, count: 1, limit: configuration.historyVersions
      )
      .first
    else { throw EngineRefusal.historyExpired(oldest: oldest) }
    return (state, entry.at)
  }

  /// Makes the session's visible path what it was at `version`, as a new change: `PUT state`
  /// with that path (`discard` as there), which adds `session.restored`.
  package func restore(
    _ record: SessionRecord, to version: Int, discard: Bool, by caller: Caller,
    precondition: VersionPrecondition?, minimal: Bool, idempotency: IdempotencyClaim?
  ) throws(EngineRefusal) -> AppliedCommand {
    let path = try Self.kept(
      version, of: try past(of: record), catalog: catalog, configuration: configuration
    ).0.visiblePathEntries
    let command = Command.restore(version: version, path: path)
    return try apply(
      discard ? .discarding(command) : command, to: record, by: caller,
      precondition: precondition, minimal: minimal, idempotency: idempotency)
  }
}

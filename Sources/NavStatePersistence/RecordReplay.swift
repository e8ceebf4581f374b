import NavJSON
package import NavStateEngine
import NavStateWire
import NavigationCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Replays stored records into sessions, whatever store kept them: a new session whole, a
/// command applied again (the version it made and its times checked), a migration, an end, a
/// settled idempotency key. A record the sessions already hold (from a snapshot, or an earlier
/// record) is skipped, told apart by its version.
package enum RecordReplay {
  /// Applies one journal record; false when the snapshot (or an earlier record) already has it.
  /// `node`: the slot the sessions belong to (nil: this node's).
  package static func replay(
    _ payload: [UInt8], into sessions: inout [SessionID: SessionRecord], store: SessionStore,
    node: NodeName? = nil
  ) throws(SessionArchive.Damage) -> Bool {
    var reader = ByteReader(payload, at: 1)
    func need<T>(_ value: T?, _ what: String) throws(SessionArchive.Damage) -> T {
      guard let value else { throw SessionArchive.Damage(reason: "cannot read its \(what)") }
      return value
    }
    switch Journal.Tag(rawValue: payload[0]) {
    case .created, .session:
      var graphVersion = 1
      if payload[0] == Journal.Tag.session.rawValue {
        graphVersion = try need(reader.natural(), "graph version")
      }
      let record = try SessionArchive.decode(
        Array(payload[reader.offset...]),
        graph: { store.catalog.graph($0, version: graphVersion) },
        historyGraph: { store.catalog.graph($0, version: $1) },
        configuration: store.configuration, node: node)
      guard sessions[record.key] == nil else { return false }
      sessions[record.key] = record
      return true
    case .applied:
      let key = SessionID(
        high: try need(reader.varint(), "id"), low: try need(reader.varint(), "id"))
      let operation = try need(reader.string(), "operation")
      let bodyLength = try need(reader.count(), "body")
      let body = Array(payload[reader.offset..<reader.offset + bodyLength])
      reader = ByteReader(payload, at: reader.offset + bodyLength)
      // Ended since, or already in the snapshot: nothing to do.
      guard let record = sessions[key] else { return false }
      return try Self.replay(
        try Self.command(operation, body), named: operation, after: &reader,
        to: record, store: store, authored: false)
    case .command, .change:
      let key = SessionID(
        high: try need(reader.varint(), "id"), low: try need(reader.varint(), "id"))
      let graph = try need(reader.string(), "graph")
      let graphVersion = try need(reader.natural(), "graph version")
      let command = try need(CommandCoding.read(&reader), "command")
      guard let record = sessions[key] else { return false }
      let (sessionGraph, sessionVersion) = record.data.withLock {
        ($0.navigation.graph.name, $0.navigation.graphVersion)
      }
      guard graph == sessionGraph, graphVersion == sessionVersion else {
        throw SessionArchive.Damage(
          reason:
            "its command applied under graph \(graph) version \(graphVersion), the session has \(sessionGraph) version \(sessionVersion)"
        )
      }
      return try Self.replay(
        command, named: "command", after: &reader, to: record, store: store,
        authored: payload[0] == Journal.Tag.change.rawValue)
    case .migrated:
      let key = SessionID(
        high: try need(reader.varint(), "id"), low: try need(reader.varint(), "id"))
      let graph = try need(reader.string(), "graph")
      let from = try need(reader.natural(), "graph version")
      let to = try need(reader.natural(), "graph version")
      guard let record = sessions[key] else { return false }
      let path = store.catalog.versions(of: graph, after: from, upTo: to)
      guard path.last?.version == to else {
        throw SessionArchive.Damage(reason: "version \(to) of graph \(graph) is not loaded")
      }
      return try Self.replayMigration(
        through: path, from: from, after: &reader, to: record, store: store)
    case .ended:
      let key = SessionID(
        high: try need(reader.varint(), "id"), low: try need(reader.varint(), "id"))
      return sessions.removeValue(forKey: key) != nil
    case .decided:
      let key = SessionID(
        high: try need(reader.varint(), "id"), low: try need(reader.varint(), "id"))
      let decided = try need(IdempotencyLedger.Decision.read(&reader), "key")
      guard let record = sessions[key] else { return false }
      return record.data.withLock { data in
        guard data.idempotency?.isDecided(decided.key) != true else { return false }
        data.settle(decided.key, with: decided.decision)
        return true
      }
    case .feed:
      // The feed's own (read by ``DataDirectory/readFeed()``): no session changes.
      return false
    case .fed:
      // A record and its feed items: the record is replayed (the items are read apart).
      let length = try need(reader.count(), "record")
      guard length >= 1 else { throw SessionArchive.Damage(reason: "cannot read its record") }
      return try replay(
        Array(payload[reader.offset..<reader.offset + length]), into: &sessions, store: store,
        node: node)
    case nil:
      throw SessionArchive.Damage(reason: "unknown record")
    }
  }

  /// Applies `command` to `record` unless it already has it, reading the rest of its record
  /// (the version it made, its times and its `Idempotency-Key`) from `reader`.
  static func replay(
    _ command: Command, named name: String, after reader: inout ByteReader,
    to record: SessionRecord, store: SessionStore, authored: Bool
  ) throws(SessionArchive.Damage) -> Bool {
    guard let version = reader.natural(), let updated = reader.signed(),
      let expires = reader.signed()
    else { throw SessionArchive.Damage(reason: "cannot read its version and times") }
    var author = SessionHistory.Author.client
    if authored {
      guard let byte = reader.byte(), let read = SessionHistory.Author(rawValue: byte) else {
        throw SessionArchive.Damage(reason: "cannot read who made it")
      }
      author = read
    }
    let decided = try reader.isAtEnd ? nil : Self.decision(&reader)
    return try record.data.withLock { (data) throws(SessionArchive.Damage) -> Bool in
      guard data.navigation.version < version else { return false }
      if let decided { data.settle(decided.key, with: decided.decision) }
      let activeBefore = data.navigation.activeID
      let events: [NavigationEvent]
      do throws(NavigationError) {
        events = try data.navigation.apply(command)
      } catch {
        throw SessionArchive.Damage(reason: "its \(name) is refused on replay: \(error.detail)")
      }
      guard data.navigation.version == version else {
        throw SessionArchive.Damage(
          reason: "its \(name) gives version \(data.navigation.version), not \(version)")
      }
      for event in events { data.log.append(event) }
      data.updatedAt = Timestamp(milliseconds: Int64(updated))
      data.expiresAt = Timestamp(milliseconds: Int64(expires))
      // When the coordinator shown now was shown first, for the feed's `durationMs`.
      if data.navigation.activeID != activeBefore { data.activeSince = data.updatedAt }
      data.history.append(
        SessionHistory.Entry(
          version: version, at: data.updatedAt, by: author, change: .command(command)),
        state: data.navigation, limit: store.configuration.historyVersions)
      data.accountedBytes = MemoryFootprint.session(data)
      return true
    }
  }

  /// Moves `record` through `path` unless it is past that already.
  static func replayMigration(
    through path: [RouteGraph], from: Int, after reader: inout ByteReader,
    to record: SessionRecord, store: SessionStore
  ) throws(SessionArchive.Damage) -> Bool {
    guard let version = reader.natural(), let updated = reader.signed(),
      let expires = reader.signed()
    else { throw SessionArchive.Damage(reason: "cannot read its version and times") }
    return try record.data.withLock { (data) throws(SessionArchive.Damage) -> Bool in
      guard data.navigation.version < version else { return false }
      guard data.navigation.graphVersion == from else {
        throw SessionArchive.Damage(
          reason:
            "it migrates from graph version \(from), the session has \(data.navigation.graphVersion)"
        )
      }
      let migrated: (NavigationState, [NavigationEvent])
      do throws(NavigationError) {
        migrated = try data.navigation.migrated(
          through: path, isOpen: SessionStore.isOpen(in: data, under: path))
      } catch {
        throw SessionArchive.Damage(reason: "its migration is refused on replay: \(error.detail)")
      }
      let activeBefore = data.navigation.activeID
      data.navigation = migrated.0
      guard data.navigation.version == version else {
        throw SessionArchive.Damage(
          reason: "its migration gives version \(data.navigation.version), not \(version)")
      }
      for event in migrated.1 { data.log.append(event) }
      data.updatedAt = Timestamp(milliseconds: Int64(updated))
      data.expiresAt = Timestamp(milliseconds: Int64(expires))
      if data.navigation.activeID != activeBefore { data.activeSince = data.updatedAt }
      data.history.append(
        SessionHistory.Entry(
          version: version, at: data.updatedAt, by: .server,
          change: .migrate(from: from, to: data.navigation.graphVersion)),
        state: data.navigation, limit: store.configuration.historyVersions)
      data.accountedBytes = MemoryFootprint.session(data)
      return true
    }
  }

  static func decision(_ reader: inout ByteReader) throws(SessionArchive.Damage) -> (
    key: String, decision: IdempotencyLedger.Decision
  ) {
    guard let decided = IdempotencyLedger.Decision.read(&reader) else {
      throw SessionArchive.Damage(reason: "cannot read its key")
    }
    return decided
  }

  /// The command a format-1 journal record names, decoded as its request was (its body is a v1
  /// request body, which the wire format's decoder reads as the API did then).
  static func command(_ operation: String, _ body: [UInt8])
    throws(SessionArchive.Damage) -> Command
  {
    if operation == "teardown" {
      guard let id = CoordinatorID(String(decoding: body, as: UTF8.self)) else {
        throw SessionArchive.Damage(reason: "a teardown names no coordinator")
      }
      return .teardown(id)
    }
    do {
      let json = body.isEmpty ? JSONValue.object(JSONObject()) : try JSONParser.parse(body)
      return try CommandDecoder.command(operation, body: json)
    } catch {
      throw SessionArchive.Damage(reason: "its \(operation) cannot be decoded: \(error)")
    }
  }

}

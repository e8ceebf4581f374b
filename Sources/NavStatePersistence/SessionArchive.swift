import NavJSON
package import NavStateEngine
import NavStateWire
package import NavigationCore

/// One session as a data directory keeps it: what it takes to carry on exactly (the same id,
/// tree, version, sequence numbers and kept events), with the token only as its SHA-256 digest.
package enum SessionArchive {
  /// Why bytes are not a session this server saved.
  package struct Damage: Error {
    package var reason: String
  }

  package static func encode(_ record: SessionRecord, _ data: SessionRecord.Data) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(256)
    bytes.appendVarint(record.key.high)
    bytes.appendVarint(record.key.low)
    bytes.append(contentsOf: record.token.digest)
    bytes.appendVarint(Int(record.createdAt.milliseconds))
    bytes.appendVarint(Int(data.updatedAt.milliseconds))
    bytes.appendVarint(Int(data.expiresAt.milliseconds))
    bytes.appendBlob(record.client)
    let navigation = data.navigation
    bytes.appendBlob(navigation.graph.name)
    bytes.appendVarint(UInt64(navigation.version))
    bytes.appendVarint(UInt64(navigation.lastIssuedID))
    bytes.appendVarint(UInt64(navigation.lastSeq))
    bytes.appendVarint(UInt64(navigation.rootID?.number ?? 0))
    appendCoordinators(navigation, to: &bytes)
    let records = data.log.records
    bytes.appendVarint(UInt64(records.count))
    bytes.append(contentsOf: records)
    // After the log, and only when there are any: archives without keys read as before. Then
    // the context, pending request and leave guards, when the session has any.
    // Since the history (issue 34) all three always follow: keys, guards, history.
    let decisions = data.idempotency?.decisions ?? []
    bytes.appendVarint(UInt64(decisions.count))
    for (key, decision) in decisions {
      IdempotencyLedger.Decision.append(key: key, decision, to: &bytes)
    }
    appendGuarding(navigation, to: &bytes)
    appendHistory(data.history, to: &bytes)
    if hasSharing(navigation) { appendSharing(navigation, to: &bytes) }
    return bytes
  }

  package static func decode(
    _ bytes: [UInt8], graph: (String) -> RouteGraph?,
    historyGraph: (String, Int) -> RouteGraph? = { _, _ in nil },
    configuration: StoreConfiguration, node: NodeName? = nil
  ) throws(Damage) -> SessionRecord {
    var reader = ByteReader(bytes)
    func need<T>(_ value: T?, _ what: String) throws(Damage) -> T {
      guard let value else { throw Damage(reason: "cannot read its \(what)") }
      return value
    }
    let key = SessionID(
      high: try need(reader.varint(), "id"), low: try need(reader.varint(), "id"))
    var digest: [UInt8] = []
    for _ in 0..<32 { digest.append(try need(reader.byte(), "token digest")) }
    let token = try need(SessionToken(digest: digest), "token digest")
    let createdAt = Timestamp(milliseconds: Int64(try need(reader.signed(), "times")))
    let updatedAt = Timestamp(milliseconds: Int64(try need(reader.signed(), "times")))
    let expiresAt = Timestamp(milliseconds: Int64(try need(reader.signed(), "times")))
    let client = try need(reader.string(), "client address")
    let graphName = try need(reader.string(), "graph")
    guard let graph = graph(graphName) else {
      throw Damage(reason: "its graph '\(graphName)' (at its version) is not loaded")
    }
    let version = try need(reader.natural(), "version")
    let lastIssuedID = try need(reader.natural(), "last id")
    let lastSeq = try need(reader.natural(), "last seq")
    let root = try need(reader.natural(), "root")
    let coordinators = try readCoordinators(&reader)
    let logLength = try need(reader.count(), "event log")
    guard logLength <= bytes.count - reader.offset else {
      throw Damage(reason: "its event log is cut short")
    }
    let records = Array(bytes[reader.offset..<reader.offset + logLength])
    var decisions: [(key: String, decision: IdempotencyLedger.Decision)] = []
    reader = ByteReader(bytes, at: reader.offset + logLength)
    if !reader.isAtEnd {
      let count = try need(reader.count(), "idempotency keys")
      for _ in 0..<count {
        decisions.append(try need(IdempotencyLedger.Decision.read(&reader), "idempotency key"))
      }
    }
    let guarding = reader.isAtEnd ? Guarding() : try readGuarding(&reader)
    let history =
      reader.isAtEnd
      ? nil : try readHistory(&reader, graph: historyGraph, limits: configuration.limits)
    let sharing = reader.isAtEnd ? Sharing() : try readSharing(&reader)
    guard reader.isAtEnd else { throw Damage(reason: "it has bytes after its shares") }
    let navigation: NavigationState
    do {
      navigation = try NavigationState(
        restoring: graph, limits: configuration.limits, coordinators: coordinators,
        rootID: root == 0 ? nil : CoordinatorID(root), version: version,
        lastIssuedID: lastIssuedID, lastSeq: lastSeq, context: guarding.context,
        pendingRequest: guarding.pending, leaveGuards: guarding.leaveGuards,
        shares: sharing.shares, forkedFrom: sharing.forkedFrom)
    } catch {
      throw Damage(reason: "its tree is not one the operations make: \(error.detail)")
    }
    let log = try need(
      EventLog(
        restoring: records, capacity: configuration.eventBufferSize,
        maxBytes: configuration.eventBufferBytes), "event log")
    var data = SessionRecord.Data(
      navigation: navigation, updatedAt: updatedAt, expiresAt: expiresAt, log: log)
    data.called = true
    data.history = history ?? SessionHistory(startingAt: navigation, at: updatedAt)
    for (key, decision) in decisions { data.settle(key, with: decision) }
    data.accountedBytes = MemoryFootprint.session(data)
    return SessionRecord(
      key: key, node: node ?? configuration.node, token: token, createdAt: createdAt,
      client: client,
      data: data)
  }
}

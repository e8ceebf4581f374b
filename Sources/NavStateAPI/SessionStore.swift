import MicroHTTPServer
import NavJSON
import NavigationCore
import Synchronization

/// Settings of the store, from the command line.
public struct StoreConfiguration: Sendable {
  public var maxSessions: Int = 100_000
  public var sessionTTLSeconds: Double = 30 * 60
  public var limits = NavigationLimits()
  public var eventBufferSize: Int = 1024

  public init() {}
}

/// Every live session, split into shards so that requests on different sessions do not contend
/// on one lock.
public final class SessionStore: Sendable {
  private final class Shard: Sendable {
    let sessions = Mutex<[String: SessionRecord]>([:])
  }

  public let configuration: StoreConfiguration
  public let graphs: [String: RouteGraph]
  public let defaultGraph: String
  private let shards: [Shard]
  private let sessionCount = Atomic<Int>(0)
  private let coordinatorCount = Atomic<Int>(0)
  private let expiredCount = Atomic<Int>(0)
  private let streamCount = Atomic<Int>(0)
  private let deliveryCount = Atomic<Int>(0)
  private let lastSubscriberID = Atomic<Int>(0)

  public init(graphs: [RouteGraph], defaultGraph: String, configuration: StoreConfiguration) {
    self.configuration = configuration
    var byName: [String: RouteGraph] = [:]
    for graph in graphs { byName[graph.name] = graph }
    self.graphs = byName
    self.defaultGraph = defaultGraph
    self.shards = (0..<64).map { _ in Shard() }
  }

  public var liveSessions: Int { sessionCount.load(ordering: .relaxed) }
  public var liveCoordinators: Int { coordinatorCount.load(ordering: .relaxed) }
  public var expiredSessions: Int { expiredCount.load(ordering: .relaxed) }
  /// Event streams open now, over all sessions.
  public var openStreams: Int { streamCount.load(ordering: .relaxed) }
  /// Events written to streams since start.
  public var eventsDelivered: Int { deliveryCount.load(ordering: .relaxed) }

  private func shard(for id: String) -> Shard {
    var hasher = Hasher()
    hasher.combine(id)
    return shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(shards.count))]
  }

  /// Opens a session; returns it with its token (the only time the token is shown).
  func create(graph name: String?, root: RouteRequest?, now: Timestamp) throws(APIProblem) -> (
    SessionRecord, token: String
  ) {
    let graphName = name ?? defaultGraph
    guard let graph = graphs[graphName] else {
      throw APIProblem(
        status: 422, code: "unknown_graph", title: "Unknown graph",
        detail: "no graph named '\(graphName)' is loaded (see GET /v1/graphs)")
    }
    let (navigation, events): (NavigationState, [NavigationEvent])
    do {
      (navigation, events) = try NavigationState.start(
        graph: graph, root: root, limits: configuration.limits)
    } catch {
      throw APIProblem(error)
    }
    // Reserve a place first, so concurrent creations cannot overshoot the limit.
    let reserved = sessionCount.wrappingAdd(1, ordering: .relaxed).newValue
    guard reserved <= configuration.maxSessions else {
      sessionCount.wrappingSubtract(1, ordering: .relaxed)
      throw APIProblem(
        status: 503, code: "too_many_sessions", title: "Too many sessions",
        detail: "the server holds its limit of \(configuration.maxSessions) sessions; retry later",
        headers: [("Retry-After", "60")])
    }
    var data = SessionRecord.Data(
      navigation: navigation, updatedAt: now,
      expiresAt: now.adding(seconds: configuration.sessionTTLSeconds),
      log: EventLog(capacity: configuration.eventBufferSize))
    data.record(events)
    let token = SecureRandom.token()
    while true {
      let record = SessionRecord(
        id: SecureRandom.sessionID(), token: token, createdAt: now, data: data)
      let inserted = shard(for: record.id).sessions.withLock { sessions in
        guard sessions[record.id] == nil else { return false }
        sessions[record.id] = record
        return true
      }
      if inserted {
        coordinatorCount.wrappingAdd(navigation.liveCount, ordering: .relaxed)
        return (record, token)
      }
    }
  }

  /// The session for this id and bearer token. Unknown id and wrong token fail alike.
  func authorize(id: String, authorization: String?) throws(APIProblem) -> SessionRecord {
    guard let authorization, let token = Self.bearerToken(authorization) else {
      throw APIProblem.missingToken
    }
    // Decided from the token's shape alone, before any lookup, so it says nothing about sessions.
    guard SecureRandom.isWellFormedToken(token) else { throw APIProblem.malformedToken }
    let record = shard(for: id).sessions.withLock { $0[id] }
    // Compare even when the id is unknown, so both failures take the same time.
    let given = Array(token.utf8)
    let expected = record?.token ?? Array(repeating: 0, count: given.count)
    guard SecureRandom.constantTimeEqual(expected, given), let record else {
      throw APIProblem.sessionNotFound
    }
    return record
  }

  static func bearerToken(_ header: String) -> Substring? {
    let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let token = parts[1].trimmingCharacters(in: " \t")
    return token.isEmpty ? nil : token
  }

  /// Counts the coordinators an operation started and stopped.
  func account(_ events: [NavigationEvent]) {
    var delta = 0
    for event in events {
      switch event.kind {
      case .started: delta += 1
      case .stopped: delta -= 1
      default: break
      }
    }
    if delta != 0 { coordinatorCount.wrappingAdd(delta, ordering: .relaxed) }
  }

  /// Ends a session: every coordinator stops, then `session.ended`, and its streams finish.
  /// `condition` is checked under the session's lock first (If-Match, or still idle for expiry);
  /// returning false leaves the session alone. Returns the last events (none if it did not end).
  @discardableResult
  func end(
    _ record: SessionRecord, reason: SessionEndReason,
    if condition: (SessionRecord.Data) throws(APIProblem) -> Bool = { _ in true }
  ) throws(APIProblem) -> [NavigationEvent] {
    let events = try record.data.withLock { (data) throws(APIProblem) -> [NavigationEvent]? in
      guard !data.ended, try condition(data) else { return nil }
      let removed = shard(for: record.id).sessions.withLock { $0.removeValue(forKey: record.id) }
      guard removed != nil else { return nil }
      data.ended = true
      let events = data.navigation.end(reason: reason)
      delivered(data.record(events))
      // The streams end after `session.ended`: there is nothing more to follow.
      data.finishStreams()
      return events
    }
    guard let events else { return [] }
    sessionCount.wrappingSubtract(1, ordering: .relaxed)
    account(events)
    if reason == .expired { expiredCount.wrappingAdd(1, ordering: .relaxed) }
    return events
  }

  /// Ends every session idle past its expiry time.
  public func expireIdle(now: Timestamp) {
    for shard in shards {
      let records = shard.sessions.withLock { Array($0.values) }
      for record in records {
        _ = try? end(record, reason: .expired) { $0.expiresAt <= now }
      }
    }
  }

  func delivered(_ count: Int) {
    if count > 0 { deliveryCount.wrappingAdd(count, ordering: .relaxed) }
  }

  /// Registers a stream that follows `record`; it is forgotten when the server closes it.
  func subscribe(
    _ record: SessionRecord, prepare: (inout SessionRecord.Data) throws(APIProblem) -> [UInt8]
  )
    throws(APIProblem) -> HTTPStream
  {
    let id = lastSubscriberID.wrappingAdd(1, ordering: .relaxed).newValue
    let stream = HTTPStream(maxBufferedBytes: 1 << 20) { [weak record, self] in
      record?.data.withLock { data in data.subscribers.removeAll { $0.id == id } }
      streamCount.wrappingSubtract(1, ordering: .relaxed)
    }
    try record.data.withLock { (data) throws(APIProblem) in
      let initial = try prepare(&data)
      stream.write(initial)
      data.subscribers.append(EventSubscriber(id: id, stream: stream))
    }
    streamCount.wrappingAdd(1, ordering: .relaxed)
    return stream
  }

  /// Writes a heartbeat comment to every open stream; streams whose client is gone are dropped.
  public func sendHeartbeats() {
    for shard in shards {
      let records = shard.sessions.withLock { Array($0.values) }
      for record in records {
        record.data.withLock { data in
          guard !data.subscribers.isEmpty else { return }
          data.subscribers.removeAll { !$0.stream.write(EventStreamFraming.heartbeat) }
        }
      }
    }
  }
}

extension StringProtocol {
  fileprivate func trimmingCharacters(in characters: String) -> Substring {
    var text = Substring(self)
    while let first = text.first, characters.contains(first) { text = text.dropFirst() }
    while let last = text.last, characters.contains(last) { text = text.dropLast() }
    return text
  }
}

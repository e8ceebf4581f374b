import MicroHTTPServer
import NavJSON
import NavigationCore
import Synchronization

/// An open event stream of one session.
struct EventSubscriber: Sendable {
  var id: Int
  var stream: HTTPStream
}

/// One live session. Its lock serializes the operations on it; other sessions never wait on it.
final class SessionRecord: Sendable {
  struct Data: Sendable {
    var navigation: NavigationState
    var updatedAt: Timestamp
    var expiresAt: Timestamp
    var log: EventLog
    var ended = false
    var subscribers: [EventSubscriber] = []
    /// What this session is counted for in the memory budget.
    var accountedBytes = 0
    /// The state's members that change only with the version, encoded for `cachedVersion`:
    /// those before `expiresAt` and those after it.
    var cachedHead: [UInt8] = []
    var cachedTail: [UInt8] = []
    /// The tree `cachedTail` was encoded from (nil: not yet encoded). The tail depends on the
    /// tree alone, so a version that leaves an equal tree (a push and its pop) keeps it. At rest
    /// this shares its storage with `navigation.coordinators`, so it costs no memory.
    var cachedTree: (root: CoordinatorID?, coordinators: CoordinatorTable)?
    /// The tree and tail encoded before those: a push and then its pop (two calls, two
    /// versions) comes back to it, and the pop then encodes nothing. Held while the session is in
    /// use; dropped with the rest of the cache.
    var previousTree: (root: CoordinatorID?, coordinators: CoordinatorTable, tail: [UInt8])?
    var cachedVersion = -1
    /// The cache was built since the memory budget last counted it.
    var cacheUncounted = false
    /// The cache is queued to be dropped once the session idles (see SessionStore).
    var cacheDropQueued = false

    /// Forgets the encoded state (it is rebuilt by the next read or write that needs it).
    mutating func dropCache() {
      cachedHead = []
      cachedTail = []
      cachedTree = nil
      previousTree = nil
      cachedVersion = -1
    }
  }

  let id: String
  let token: [UInt8]
  let createdAt: Timestamp
  /// The address that created it, for the per-client session cap.
  let client: String
  let data: Mutex<Data>

  init(id: String, token: String, createdAt: Timestamp, client: String, data: Data) {
    self.id = id
    self.token = Array(token.utf8)
    self.createdAt = createdAt
    self.client = client
    self.data = Mutex(data)
  }

  func times(of data: Data) -> SessionTimes {
    SessionTimes(createdAt: createdAt, updatedAt: data.updatedAt, expiresAt: data.expiresAt)
  }

  /// The state alone as JSON, in a buffer of the size it needs.
  func encodedState(of data: inout Data) -> [UInt8] {
    updateCache(of: &data)
    var writer = JSONWriter(capacity: data.cachedHead.count + data.cachedTail.count + 48)
    writeState(of: &data, into: &writer)
    return writer.bytes
  }

  /// The state as JSON. All of it but `expiresAt` is encoded once per version and kept, so a
  /// read copies bytes.
  func writeState(of data: inout Data, into writer: inout JSONWriter) {
    updateCache(of: &data)
    StateJSON.writeState(
      head: data.cachedHead, expiresAt: data.expiresAt, tail: data.cachedTail, into: &writer)
  }

  private func updateCache(of data: inout Data) {
    if data.cachedVersion != data.navigation.version {
      data.cachedHead = StateJSON.encodeHead(id: id, state: data.navigation, times: times(of: data))
      let tree = (root: data.navigation.rootID, coordinators: data.navigation.coordinators)
      if let cached = data.cachedTree, cached.root == tree.root,
        cached.coordinators == tree.coordinators
      {
        // Equal trees, equal tails; keep the current storage only, so the old one is freed.
      } else if let previous = data.previousTree, previous.root == tree.root,
        previous.coordinators == tree.coordinators
      {
        // Back to the tree before: its tail becomes current, and the current one previous.
        data.previousTree = data.cachedTree.map { ($0.root, $0.coordinators, data.cachedTail) }
        data.cachedTail = previous.tail
      } else {
        data.previousTree = data.cachedTree.map { ($0.root, $0.coordinators, data.cachedTail) }
        data.cachedTail = StateJSON.encodeTail(of: data.navigation)
      }
      data.cachedTree = tree
      data.cachedVersion = data.navigation.version
      data.cacheUncounted = true
    }
  }
}

extension SessionRecord.Data {
  /// Keeps the events for clients that catch up later and sends them to every open stream.
  /// Returns how many deliveries were made. Runs under the session's lock, so every stream sees
  /// the events in order and none is missed between a snapshot and a subscription.
  @discardableResult
  mutating func record(_ events: [NavigationEvent]) -> Int {
    deliver(appendToLog(events))
  }

  /// Encodes the events once and keeps them in the log; returns them for `deliver`.
  mutating func appendToLog(_ events: [NavigationEvent]) -> [EventLog.Entry] {
    events.map { event in
      let entry = EventLog.Entry(
        seq: event.seq, type: event.kind.typeName, json: StateJSON.encodeEvent(event))
      log.append(entry)
      return entry
    }
  }

  /// Sends the entries to every open stream; returns how many deliveries were made.
  mutating func deliver(_ entries: [EventLog.Entry]) -> Int {
    guard !subscribers.isEmpty else { return 0 }
    var deliveries = 0
    for entry in entries {
      let frame = EventStreamFraming.event(id: entry.seq, type: entry.type, json: entry.json)
      // A failed write means the client is gone or too slow: drop it.
      subscribers.removeAll { !$0.stream.write(frame) }
      deliveries += subscribers.count
    }
    return deliveries
  }

}

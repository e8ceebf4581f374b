package import NavStateWire
package import Synchronization

/// What the open event streams share across sessions: how many there are, per client address
/// (`--max-streams-per-ip`) and in all, their ids, their heartbeats, and how many events they
/// were sent.
package final class StreamHub: Sendable {
  private let maxPerClient: Int
  private let heartbeatSeconds: Double
  package let openCount = Atomic<Int>(0)
  package let deliveryCount = Atomic<Int>(0)
  private let lastID = Atomic<Int>(0)
  /// Open event streams per client address.
  private let perClient = Mutex(ClientShares())
  /// Open event streams by the time their next heartbeat is due.
  private let heartbeats = Mutex(DeadlineQueue<any EventSink>())

  package init(maxPerClient: Int, heartbeatSeconds: Double) {
    self.maxPerClient = maxPerClient
    self.heartbeatSeconds = heartbeatSeconds
  }

  package func nextID() -> Int { lastID.wrappingAdd(1, ordering: .relaxed).newValue }

  /// Takes a stream's place for `client`, or refuses (429) when it holds its share.
  package func reserve(for client: String) throws(EngineRefusal) {
    guard maxPerClient > 0 else { return }
    let taken = perClient.withLock { $0.take(for: client, cap: maxPerClient) }
    guard taken else { throw EngineRefusal.tooManyStreamsForClient(cap: maxPerClient) }
  }

  package func release(of client: String) {
    guard maxPerClient > 0 else { return }
    perClient.withLock { $0.giveBack(for: client) }
  }

  /// A stream opened: its first heartbeat is due one period from `now`.
  package func opened(_ sink: any EventSink, now: Timestamp) {
    openCount.wrappingAdd(1, ordering: .relaxed)
    heartbeats.withLock { $0.push(sink, at: now.adding(seconds: heartbeatSeconds).milliseconds) }
  }

  package func closed() {
    openCount.wrappingSubtract(1, ordering: .relaxed)
  }

  package func delivered(_ count: Int) {
    if count > 0 { deliveryCount.wrappingAdd(count, ordering: .relaxed) }
  }

  /// Writes a heartbeat comment to every open stream whose heartbeat is due, and queues its
  /// next one; a stream whose client is gone fails the write, closes, and leaves its session.
  package func sendHeartbeats(now: Timestamp) {
    let due = heartbeats.withLock { $0.popDue(now: now.milliseconds) }
    let next = now.adding(seconds: heartbeatSeconds).milliseconds
    for sink in due where sink.write(EventStreamFraming.heartbeat) {
      heartbeats.withLock { $0.push(sink, at: next) }
    }
  }
}

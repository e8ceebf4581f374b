import NavJSON
public import NavStateWire
import NavigationCore
import Synchronization

/// Event streams opened on sessions.
extension SessionStore {
  package func delivered(_ count: Int) { streams.delivered(count) }

  /// Registers a stream that follows `record` for `client`; it is forgotten when the server
  /// closes it. `prepare` gives the stream's first bytes and whether they hold an event (else
  /// the reconnection delay waits for the first event, see ``EventSubscriber``). `makeSink`
  /// makes the stream (the HTTP layer's) with the most it may buffer and what to do when it
  /// closes.
  package func subscribe<Sink: EventSink>(
    _ record: SessionRecord, client: String, caller: Caller = .sessionHolder,
    prepare: (inout SessionRecord.Data) throws(EngineRefusal) -> (bytes: [UInt8], hasEvent: Bool),
    makeSink: (_ maxBufferedBytes: Int, _ onClose: @escaping @Sendable () -> Void) -> Sink
  )
    throws(EngineRefusal) -> Sink
  {
    try streams.reserve(for: client)
    do {
      return try subscribe(record, caller: caller, prepare: prepare, makeSink: makeSink) {
        [streams] in
        streams.release(of: client)
      }
    } catch {
      streams.release(of: client)
      throw error
    }
  }

  private func subscribe<Sink: EventSink>(
    _ record: SessionRecord, caller: Caller,
    prepare: (inout SessionRecord.Data) throws(EngineRefusal) -> (bytes: [UInt8], hasEvent: Bool),
    makeSink: (Int, @escaping @Sendable () -> Void) -> Sink,
    onClose: @escaping @Sendable () -> Void
  )
    throws(EngineRefusal) -> Sink
  {
    // A change waiting for its store holds the session's commit gate: a stream opens once
    // that change is sent to streams, so it never sees in the log what it is then sent again.
    guard storage?.confirmsLater == true else {
      return try subscribeNow(
        record, caller: caller, prepare: prepare, makeSink: makeSink, onClose: onClose)
    }
    return try record.commitGate.withLock(of: record) { () throws(EngineRefusal) in
      try subscribeNow(
        record, caller: caller, prepare: prepare, makeSink: makeSink, onClose: onClose)
    }
  }

  private func subscribeNow<Sink: EventSink>(
    _ record: SessionRecord, caller: Caller,
    prepare: (inout SessionRecord.Data) throws(EngineRefusal) -> (bytes: [UInt8], hasEvent: Bool),
    makeSink: (Int, @escaping @Sendable () -> Void) -> Sink,
    onClose: @escaping @Sendable () -> Void
  )
    throws(EngineRefusal) -> Sink
  {
    let id = streams.nextID()
    // The first message (a reset holds the whole state) may be large: the stream's cap, and its
    // share of the memory budget, are that message plus what a slow reader may fall behind by.
    let sink = try record.data.withLock { (data) throws(EngineRefusal) -> Sink in
      let (initial, hasEvent) = try prepare(&data)
      let footprint = MemoryFootprint.stream + initial.count
      guard memory.hasRoom(for: footprint) else { throw EngineRefusal.memoryExhausted }
      memory.add(footprint)
      let key = record.key
      let sink = makeSink(MemoryFootprint.streamBufferLimit + initial.count) {
        [weak record, self] in
        // Counted down whether or not the session is still there (it may have ended first).
        if let share = caller.share { shareWatchers.closed(key, share: share.id) }
        if let record {
          record.data.withLock { data in data.subscribers.removeAll { $0.id == id } }
          presence.changed(record)
        }
        streams.closed()
        memory.add(-footprint)
        onClose()
      }
      sink.write(initial)
      let now = Timestamp.now()
      data.subscribers.append(
        EventSubscriber(
          id: id, sink: sink, awaitsFirstEvent: !hasEvent, caller: caller, since: now))
      streams.opened(sink, now: now)
      if let share = caller.share { shareWatchers.opened(record.key, share: share.id) }
      presence.changed(record)
      return sink
    }
    return sink
  }

  /// Writes a heartbeat comment to every open stream whose heartbeat is due, and queues its
  /// next one; a stream whose client is gone fails the write, closes, and leaves its session.
  public func sendHeartbeats(now: Timestamp) { streams.sendHeartbeats(now: now) }
}

import NavigationCore

/// The latest events of one session, kept for clients that catch up. Bounded in count and in
/// bytes: the oldest go first, and a client that asks for them gets a `reset`.
///
/// Every live session holds one, and most are never read again, so the events are kept in their
/// compact form (``CompactEvent``), back to back in one buffer, each after its length; they are
/// encoded as JSON again only for a client that asks for them.
struct EventLog: Sendable {
  /// One event as clients get it.
  struct Entry: Sendable {
    var seq: Int
    var type: String
    var json: [UInt8]

    init(_ event: NavigationEvent) {
      seq = event.seq
      type = event.kind.typeName
      json = StateJSON.encodeEvent(event)
    }
  }

  let capacity: Int
  let maxBytes: Int
  private var buffer: [UInt8] = []
  /// Where the oldest kept record starts; the bytes before it are dropped, and compacted away
  /// once they are half of the buffer.
  private var start = 0
  private(set) var count = 0
  /// The sequence number of the oldest kept event.
  private(set) var oldestSeq: Int?

  init(capacity: Int, maxBytes: Int = .max) {
    self.capacity = max(1, capacity)
    self.maxBytes = max(1, maxBytes)
  }

  /// The bytes the kept events take in their compact form.
  var keptBytes: Int { buffer.count - start }

  /// What the log holds in memory: its buffer's allocation.
  var footprint: Int { buffer.capacity }

  mutating func append(_ event: NavigationEvent) {
    // Room for a few events of a fresh session; the buffer doubles from there.
    if buffer.isEmpty { buffer.reserveCapacity(80) }
    // Written in place after a one-byte length, widened in the rare case that is too short.
    let lengthAt = buffer.count
    buffer.append(0)
    CompactEvent.append(event, to: &buffer)
    let length = buffer.count - lengthAt - 1
    if length < 0x80 {
      buffer[lengthAt] = UInt8(length)
    } else {
      var prefix: [UInt8] = []
      prefix.appendVarint(UInt64(length))
      buffer.replaceSubrange(lengthAt..<lengthAt + 1, with: prefix)
    }
    if count == 0 { oldestSeq = event.seq }
    count += 1
    // The newest entry always stays, even alone over the byte cap.
    while count > 1, count > capacity || keptBytes > maxBytes { dropOldest() }
    if start > 64, start * 2 > buffer.count {
      buffer.removeFirst(start)
      start = 0
    }
  }

  private mutating func dropOldest() {
    var reader = ByteReader(buffer, at: start)
    let length = reader.count()!
    start = reader.offset + length
    count -= 1
    var next = ByteReader(buffer, at: start)
    _ = next.count()
    oldestSeq = next.varint().map(Int.init)
  }

  /// The events after `seq` in order, or nil when some of them are no longer kept.
  func after(_ seq: Int) -> [Entry]? {
    guard let oldest = oldestSeq else { return [] }
    guard seq >= oldest - 1 else { return nil }
    var entries: [Entry] = []
    var reader = ByteReader(buffer, at: start)
    while let length = reader.count() {
      var record = reader
      let event = CompactEvent.read(from: &record)!
      reader = ByteReader(buffer, at: reader.offset + length)
      if event.seq > seq { entries.append(Entry(event)) }
    }
    return entries
  }
}

import NavStateWire
package import NavigationCore

/// The latest events of one session, kept for clients that catch up. Bounded in count and in
/// bytes: the oldest go first, and a client that asks for them gets a `reset`.
///
/// Every live session holds one, and most are never read again, so the events are kept in their
/// compact form (``CompactEvent``), back to back in one buffer, each after its length; they are
/// encoded as JSON again only for a client that asks for them.
package struct EventLog: Sendable {
  /// One event as clients get it.
  package struct Entry: Sendable {
    package var seq: Int
    package var type: StaticString
    package var json: [UInt8]

    package init(_ event: NavigationEvent) {
      seq = event.seq
      type = event.kind.staticTypeName
      json = StateJSON.encodeEvent(event)
    }
  }

  // Narrow fields: every session holds a log. The caps and offsets fit in 32 bits (the byte cap
  // is at most 1 GiB, see `--event-buffer-bytes`).
  private var buffer: [UInt8] = []
  /// The sequence number of the oldest kept event; 0 when none is kept (seqs start at 1).
  private var oldest = 0
  private let countCap: UInt32
  private let byteCap: UInt32
  /// Where the oldest kept record starts; the bytes before it are dropped, and compacted away
  /// once they are half of the buffer.
  private var start: UInt32 = 0
  private var kept: UInt32 = 0
  /// Bytes compacted away since the log began (wrapping: only differences are read), so that a
  /// ``Mark`` survives a compaction.
  private var compacted: UInt32 = 0

  /// Where the log stood before an operation's events, to take them back should the operation be
  /// undone (``rollback(to:)``): cheaper than keeping a copy of the log, which the first append
  /// would then copy whole.
  package struct Mark {
    fileprivate var end: UInt32
    fileprivate var start: UInt32
    fileprivate var kept: UInt32
    fileprivate var oldest: Int
  }

  package var mark: Mark {
    Mark(
      end: compacted &+ UInt32(truncatingIfNeeded: buffer.count), start: compacted &+ start,
      kept: kept, oldest: oldest)
  }

  /// Takes back every event appended since `mark`. Events that those appends pushed out come
  /// back too, unless a compaction dropped their bytes meanwhile: the log then starts at the
  /// oldest event it still holds.
  package mutating func rollback(to mark: Mark) {
    // Bytes since the mark, and how far the marked start lies past what was compacted since.
    // Negative when a compaction took bytes written after the mark: none of what is left stays.
    let end = Int(Int32(bitPattern: mark.end &- compacted))
    guard end <= buffer.count else { return }
    buffer.removeSubrange(max(0, end)...)
    let markedStart = Int32(bitPattern: mark.start &- compacted)
    if markedStart >= 0 {
      (start, kept, oldest) = (UInt32(markedStart), mark.kept, mark.oldest)
      return
    }
    // Rare: recount what is left from the first whole record.
    start = 0
    kept = 0
    oldest = 0
    var reader = ByteReader(buffer)
    while let length = reader.count() {
      var record = ByteReader(buffer, at: reader.offset)
      if kept == 0 { oldest = record.varint().map { Int($0) } ?? 0 }
      kept += 1
      reader = ByteReader(buffer, at: reader.offset + length)
    }
  }

  package init(capacity: Int, maxBytes: Int = .max) {
    countCap = UInt32(clamping: max(1, capacity))
    byteCap = UInt32(clamping: max(1, maxBytes))
  }

  /// A log as a data directory kept it (`records`, see ``records``), or nil when those bytes are
  /// not events this log wrote. Over today's caps, the oldest go as they would have.
  package init?(restoring records: [UInt8], capacity: Int, maxBytes: Int) {
    self.init(capacity: capacity, maxBytes: maxBytes)
    var reader = ByteReader(records)
    var seqs: [Int] = []
    while !reader.isAtEnd {
      guard let length = reader.count() else { return nil }
      var record = ByteReader(records, at: reader.offset)
      guard let event = CompactEvent.read(from: &record), record.offset == reader.offset + length,
        seqs.last.map({ event.seq > $0 }) ?? true
      else { return nil }
      seqs.append(event.seq)
      reader = ByteReader(records, at: record.offset)
    }
    buffer = records
    kept = UInt32(clamping: seqs.count)
    oldest = seqs.first ?? 0
    while count > 1, count > capacity || keptBytes > maxBytes { dropOldest() }
  }

  /// The kept events in their compact form, each after its length: what a data directory keeps.
  package var records: [UInt8] { Array(buffer[Int(start)...]) }

  package var capacity: Int { Int(countCap) }
  package var maxBytes: Int { Int(byteCap) }
  package var count: Int { Int(kept) }
  /// The sequence number of the oldest kept event.
  package var oldestSeq: Int? { kept == 0 ? nil : oldest }

  /// The bytes the kept events take in their compact form.
  package var keptBytes: Int { buffer.count - Int(start) }

  /// What the log holds in memory: its buffer's allocation.
  package var footprint: Int { buffer.capacity }

  package mutating func append(_ event: NavigationEvent) {
    // Room for a few events of a fresh session; the buffer doubles from there.
    if buffer.isEmpty { buffer.reserveCapacity(64) }
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
    if kept == 0 { oldest = event.seq }
    kept += 1
    // The newest entry always stays, even alone over the byte cap.
    while count > 1, count > capacity || keptBytes > maxBytes { dropOldest() }
    if start > 64, Int(start) * 2 > buffer.count {
      buffer.removeFirst(Int(start))
      compacted &+= start
      start = 0
    }
  }

  private mutating func dropOldest() {
    var reader = ByteReader(buffer, at: Int(start))
    let length = reader.count()!
    start = UInt32(reader.offset + length)
    kept -= 1
    var next = ByteReader(buffer, at: Int(start))
    _ = next.count()
    oldest = next.varint().map { Int($0) } ?? 0
  }

  /// The events after `seq` in order, or nil when some of them are no longer kept.
  package func after(_ seq: Int) -> [Entry]? {
    guard let oldest = oldestSeq else { return [] }
    guard seq >= oldest - 1 else { return nil }
    var entries: [Entry] = []
    var reader = ByteReader(buffer, at: Int(start))
    while let length = reader.count() {
      var record = reader
      let event = CompactEvent.read(from: &record)!
      reader = ByteReader(buffer, at: reader.offset + length)
      if event.seq > seq { entries.append(Entry(event)) }
    }
    return entries
  }
}

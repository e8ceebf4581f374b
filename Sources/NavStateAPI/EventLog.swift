/// The latest events of one session, encoded once, kept for clients that catch up. Bounded in
/// count and in bytes: the oldest go first, and a client that asks for them gets a `reset`.
struct EventLog: Sendable {
  struct Entry: Sendable {
    var seq: Int
    var type: String
    var json: [UInt8]

    /// What the entry holds in memory: its JSON's allocation (capacity, not count: the writer
    /// grows by doubling), plus the entry, the array's header and the allocator's rounding.
    var footprint: Int { json.capacity + MemoryFootprint.eventOverhead }
  }

  let capacity: Int
  let maxBytes: Int
  private var entries: [Entry] = []
  /// Entries before `head` are dropped; compacted once they are half of the array.
  private var head = 0
  /// The footprint of the kept entries.
  private(set) var bytes = 0

  init(capacity: Int, maxBytes: Int = .max) {
    self.capacity = max(1, capacity)
    self.maxBytes = max(1, maxBytes)
  }

  var count: Int { entries.count - head }

  mutating func append(_ entry: Entry) {
    entries.append(entry)
    bytes += entry.footprint
    // The newest entry always stays, even alone over the byte cap.
    while count > 1, count > capacity || bytes > maxBytes {
      bytes -= entries[head].footprint
      // Until compaction the slot stays; its bytes need not.
      entries[head].json = []
      entries[head].type = ""
      head += 1
    }
    if head > 64, head * 2 > entries.count {
      entries.removeFirst(head)
      head = 0
    }
  }

  var oldestSeq: Int? { count == 0 ? nil : entries[head].seq }

  /// The events after `seq` in order, or nil when some of them are no longer kept.
  func after(_ seq: Int) -> [Entry]? {
    guard let oldest = oldestSeq else { return [] }
    guard seq >= oldest - 1 else { return nil }
    return entries[head...].filter { $0.seq > seq }
  }
}

/// The latest events of one session, encoded once, kept for clients that catch up.
struct EventLog: Sendable {
  struct Entry: Sendable {
    var seq: Int
    var type: String
    var json: [UInt8]
  }

  let capacity: Int
  private var entries: [Entry] = []
  /// Where the oldest entry is once the buffer has wrapped.
  private var start = 0

  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  mutating func append(_ entry: Entry) {
    if entries.count < capacity {
      entries.append(entry)
    } else {
      entries[start] = entry
      start = (start + 1) % capacity
    }
  }

  var oldestSeq: Int? { entries.isEmpty ? nil : entries[start].seq }

  /// The events after `seq` in order, or nil when some of them are no longer kept.
  func after(_ seq: Int) -> [Entry]? {
    guard let oldest = oldestSeq else { return [] }
    guard seq >= oldest - 1 else { return nil }
    var result: [Entry] = []
    for offset in 0..<entries.count {
      let entry = entries[(start + offset) % entries.count]
      if entry.seq > seq { result.append(entry) }
    }
    return result
  }
}

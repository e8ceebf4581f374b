/// A run of feed items in sequence order, packed in one buffer with no allocation per item:
/// each item's number as its distance from the chunk's first (a chunk holds at most a few
/// thousand), where its bytes start, and the bytes without the number.
struct FeedChunk: Sendable {
  private var base: UInt64 = 0
  private var offsets: [UInt32] = []
  private var starts: [UInt32] = []
  private var bytes: [UInt8] = []

  init(capacity: Int) {
    offsets.reserveCapacity(capacity)
    starts.reserveCapacity(capacity)
  }

  var count: Int { offsets.count }
  var first: UInt64? { offsets.first.map { base + UInt64($0) } }
  var last: UInt64? { offsets.last.map { base + UInt64($0) } }
  /// What the chunk holds, for the memory budget.
  var footprint: Int { bytes.capacity + offsets.capacity * 8 + 64 }

  /// Whether `item` may go in: numbers far past the first (numbers given up between) start a
  /// chunk of their own.
  func accepts(_ item: FeedItem) -> Bool {
    offsets.isEmpty || (item.sequence >= base && item.sequence - base <= UInt64(UInt32.max))
  }

  mutating func append(_ item: FeedItem) {
    if offsets.isEmpty { base = item.sequence }
    offsets.append(UInt32(item.sequence - base))
    starts.append(UInt32(bytes.count))
    item.appendUnnumbered(to: &bytes)
  }

  subscript(index: Int) -> FeedItem? {
    var reader = ByteReader(bytes, at: Int(starts[index]))
    return FeedItem.readUnnumbered(from: &reader, sequence: base + UInt64(offsets[index]))
  }

  /// The index of the first item after `sequence`.
  func index(after sequence: UInt64) -> Int {
    var low = 0
    var high = offsets.count
    while low < high {
      let middle = (low + high) / 2
      if base + UInt64(offsets[middle]) <= sequence { low = middle + 1 } else { high = middle }
    }
    return low
  }
}

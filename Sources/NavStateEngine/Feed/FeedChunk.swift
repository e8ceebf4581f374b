/// A run of feed items in sequence order, packed in one buffer: the feed keeps a million items
/// in a few hundred bytes each, with no allocation per item.
struct FeedChunk: Sendable {
  private(set) var sequences: [UInt64] = []
  private var starts: [UInt32] = []
  private var bytes: [UInt8] = []

  init(capacity: Int) {
    sequences.reserveCapacity(capacity)
    starts.reserveCapacity(capacity)
  }

  var count: Int { sequences.count }
  var first: UInt64? { sequences.first }
  var last: UInt64? { sequences.last }
  /// What the chunk holds, for the memory budget.
  var footprint: Int { bytes.capacity + sequences.capacity * 12 + 64 }

  mutating func append(_ item: FeedItem) {
    sequences.append(item.sequence)
    starts.append(UInt32(bytes.count))
    item.append(to: &bytes)
  }

  subscript(index: Int) -> FeedItem? {
    var reader = ByteReader(bytes, at: Int(starts[index]))
    return FeedItem.read(from: &reader)
  }

  /// The index of the first item after `sequence`.
  func index(after sequence: UInt64) -> Int {
    var low = 0
    var high = sequences.count
    while low < high {
      let middle = (low + high) / 2
      if sequences[middle] <= sequence { low = middle + 1 } else { high = middle }
    }
    return low
  }
}

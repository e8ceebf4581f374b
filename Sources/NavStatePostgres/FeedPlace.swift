/// A place in the shared feed: after the items of every transaction before `tx`, and after the
/// items of `tx` up to `id`. Items are ordered by the transaction that wrote them, then by their
/// id (see ``PostgresFeed``).
struct FeedPlace: Comparable, Sendable {
  var tx: UInt64
  var id: Int64

  static let start = FeedPlace(tx: 0, id: 0)

  /// After every item of transactions before `frontier` (the oldest still running): the place a
  /// reader that has read everything visible goes on from.
  static func before(frontier: UInt64) -> FeedPlace {
    FeedPlace(tx: max(frontier, 1) - 1, id: .max)
  }

  static func < (left: FeedPlace, right: FeedPlace) -> Bool {
    (left.tx, left.id) < (right.tx, right.id)
  }
}

/// How the shared feed's cursors read: `<epoch>-<tx>-<id>`, the epoch (8 hexadecimal digits)
/// drawn when the feed's tables were made, so that a cursor of another database, or of a node's
/// own feed (`<node>.<epoch>-<number>`), is refused rather than misread. At most 49 characters.
struct FeedCursorText: Sendable {
  let epoch: UInt32

  func string(_ place: FeedPlace) -> String {
    let hex = String(epoch, radix: 16)
    return String(repeating: "0", count: 8 - hex.count) + hex + "-" + String(place.tx) + "-"
      + String(place.id)
  }

  /// The place `text` names, or nil for a form this feed never issued.
  func place(_ text: String) -> FeedPlace? {
    guard text.utf8.count <= 64 else { return nil }
    let parts = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 8,
      parts[0].allSatisfy({
        UInt8(ascii: "0") <= $0 && $0 <= UInt8(ascii: "9")
          || UInt8(ascii: "a") <= $0 && $0 <= UInt8(ascii: "f")
      }),
      let epoch = UInt32(Substring(parts[0]), radix: 16), epoch == self.epoch,
      let tx = Self.digits(parts[1]).flatMap({ UInt64($0) }),
      let id = Self.digits(parts[2]).flatMap({ Int64($0) })
    else { return nil }
    return FeedPlace(tx: tx, id: id)
  }

  private static func digits(_ bytes: Substring.UTF8View.SubSequence) -> Substring? {
    guard !bytes.isEmpty, bytes.count <= 20,
      bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    return Substring(bytes)
  }
}

/// A feed cursor as clients see it: opaque, at most 64 characters. It names the feed it came
/// from (the node, and the feed's epoch: a number drawn when the feed began, kept with the data
/// directory) and a place in it, so that a cursor from another server, or from a feed that was
/// not kept, is refused rather than misread.
package struct FeedCursorFormat: Sendable {
  /// `<node>.` or empty.
  private let prefix: String
  private let epoch: UInt32

  package init(node: String?, epoch: UInt32) {
    prefix = node.map { $0 + "." } ?? ""
    self.epoch = epoch
  }

  package func string(_ sequence: UInt64) -> String {
    let hex = String(epoch, radix: 16)
    return prefix + String(repeating: "0", count: 8 - hex.count) + hex + "-" + String(sequence)
  }

  /// The place a cursor names, or nil for one this feed never issued the form of.
  package func sequence(of text: Substring) -> UInt64? {
    guard text.count <= 64, text.hasPrefix(prefix) else { return nil }
    let rest = text.dropFirst(prefix.count)
    guard let dash = rest.firstIndex(of: "-"), rest.distance(from: rest.startIndex, to: dash) == 8,
      let epoch = UInt32(rest[..<dash], radix: 16), epoch == self.epoch
    else { return nil }
    let digits = rest[rest.index(after: dash)...]
    guard !digits.isEmpty, digits.count <= 19, digits.allSatisfy(\.isASCII),
      digits.allSatisfy(\.isNumber)
    else { return nil }
    return UInt64(digits)
  }
}

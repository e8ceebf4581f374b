/// The values a request's path gave to a route's `{name}` segments, percent-decoded.
///
/// A matched route's values are not copied out of the path: they are kept as the path and where
/// each value lies in it, and decoded when read, so a handler that reads an id as bytes (see
/// ``withValue(_:_:)``) costs no `String` and no array.
public struct PathParameters: Sendable {
  private enum Storage: Sendable {
    case pairs([(String, String)])
    /// `names` are the route's (shared with it); the values lie in `path` at `ranges`, each
    /// shifted by `offset` (the route matched the path after its leading "/").
    case captured(names: [String], path: String, ranges: RouteTrie.Captures, offset: Int)
  }

  private let storage: Storage

  public init(_ pairs: [(String, String)] = []) {
    storage = .pairs(pairs)
  }

  init(names: [String], path: String, ranges: RouteTrie.Captures, offset: Int) {
    storage = .captured(names: names, path: path, ranges: ranges, offset: offset)
  }

  /// Every name with its value, in the route's order.
  public var pairs: [(String, String)] {
    switch storage {
    case .pairs(let pairs):
      return pairs
    case .captured(let names, _, let ranges, _):
      return names.indices.prefix(ranges.count).map { (names[$0], value(at: $0)) }
    }
  }

  /// The value of `{name}`, or nil if the route has no such parameter.
  public subscript(name: String) -> String? {
    switch storage {
    case .pairs(let pairs):
      for (key, value) in pairs where key == name { return value }
      return nil
    case .captured(let names, _, let ranges, _):
      guard let position = names.firstIndex(of: name), position < ranges.count else { return nil }
      return value(at: position)
    }
  }

  /// Calls `body` with the bytes of `{name}`'s value, percent-decoded (nil if the route has no
  /// such parameter): read in the path itself when it holds no escape.
  public func withValue(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) -> Void) {
    guard case .captured(let names, let source, let ranges, let offset) = storage,
      let position = names.firstIndex(of: name), position < ranges.count
    else {
      guard var value = self[name] else { return body(nil) }
      return value.withUTF8 { body($0) }
    }
    var path = source
    path.withUTF8 { bytes in
      let range = ranges[position]
      let raw = UnsafeBufferPointer(
        rebasing: bytes[(range.lowerBound + offset)..<(range.upperBound + offset)])
      guard RequestTarget.escapeMark(in: raw) != nil else { return body(raw) }
      var decoded = PercentDecoding.decode(raw, plusAsSpace: false)
      decoded.withUTF8 { body($0) }
    }
  }

  private func value(at position: Int) -> String {
    guard case .captured(_, var path, let ranges, let offset) = storage else { return "" }
    let range = ranges[position]
    return path.withUTF8 { bytes in
      PercentDecoding.decode(
        UnsafeBufferPointer(
          rebasing: bytes[(range.lowerBound + offset)..<(range.upperBound + offset)]),
        plusAsSpace: false)
    }
  }
}

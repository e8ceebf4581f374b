/// The values a request's path gave to a route's `{name}` segments, percent-decoded.
///
/// A matched route's values are not copied out of the path: they are kept as the path and where
/// each value lies in it, and decoded when read, so a handler that reads an id as bytes (see
/// ``withValue(_:_:)``) costs no `String` and no array.
public struct PathParameters: Sendable {
  /// The route's names (shared with it), in order.
  private let names: [String]
  /// The path the values lie in, at `ranges` shifted by `offset` (the route matched the path
  /// after its leading "/").
  private let path: String
  private let ranges: RouteTrie.Captures
  private let offset: Int
  /// The values, when given rather than captured.
  private let given: [(String, String)]?

  public init(_ pairs: [(String, String)] = []) {
    names = pairs.map(\.0)
    path = ""
    ranges = RouteTrie.Captures()
    offset = 0
    given = pairs
  }

  init(names: [String], path: String, ranges: RouteTrie.Captures, offset: Int) {
    self.names = names
    self.path = path
    self.ranges = ranges
    self.offset = offset
    self.given = nil
  }

  /// Every name with its value, in the route's order.
  public var pairs: [(String, String)] {
    given ?? names.indices.prefix(ranges.count).map { (names[$0], value(at: $0)) }
  }

  /// The value of `{name}`, or nil if the route has no such parameter.
  public subscript(name: String) -> String? {
    guard let position = position(of: name) else { return nil }
    return given?[position].1 ?? value(at: position)
  }

  /// Calls `body` with the bytes of `{name}`'s value, percent-decoded (nil if the route has no
  /// such parameter): read in the path itself when it holds no escape.
  public func withValue(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) -> Void) {
    guard let position = position(of: name) else { return body(nil) }
    if let given {
      var value = given[position].1
      return value.withUTF8 { body($0) }
    }
    var path = path
    path.withUTF8 { bytes in
      let raw = UnsafeBufferPointer(rebasing: bytes[range(at: position)])
      guard RequestTarget.escapeMark(in: raw) != nil else { return body(raw) }
      var decoded = PercentDecoding.decode(raw, plusAsSpace: false)
      decoded.withUTF8 { body($0) }
    }
  }

  private func position(of name: String) -> Int? {
    guard let position = names.firstIndex(of: name),
      given != nil || position < ranges.count
    else { return nil }
    return position
  }

  private func range(at position: Int) -> Range<Int> {
    let range = ranges[position]
    return (range.lowerBound + offset)..<(range.upperBound + offset)
  }

  private func value(at position: Int) -> String {
    var path = path
    return path.withUTF8 { bytes in
      PercentDecoding.decode(
        UnsafeBufferPointer(rebasing: bytes[range(at: position)]), plusAsSpace: false)
    }
  }
}

/// An ordered list of header fields. Lookup by name ignores ASCII case; order and repeated fields
/// are kept as received (or as added).
public struct HTTPHeaders: Sendable {
  public private(set) var pairs: [(String, String)]

  public init(_ pairs: [(String, String)] = []) {
    self.pairs = pairs
  }

  /// The first value of the field `name`, compared without regard to ASCII case.
  public subscript(name: String) -> String? {
    for (key, value) in pairs where key.equalsIgnoringASCIICase(name) {
      return value
    }
    return nil
  }

  /// Every value of the field `name`, in order.
  public func values(_ name: String) -> [String] {
    pairs.compactMap { $0.0.equalsIgnoringASCIICase(name) ? $0.1 : nil }
  }

  /// Appends a field; an existing field of the same name is kept.
  public mutating func add(_ name: String, _ value: String) {
    pairs.append((name, value))
  }

  /// Removes every field named `name`, then appends `name: value`.
  public mutating func replace(_ name: String, _ value: String) {
    pairs.removeAll { $0.0.equalsIgnoringASCIICase(name) }
    pairs.append((name, value))
  }

  public var isEmpty: Bool { pairs.isEmpty }

  public var count: Int { pairs.count }
}

extension String {
  /// Compares two strings byte by byte, folding only ASCII letters (header names are ASCII).
  func equalsIgnoringASCIICase(_ other: String) -> Bool {
    guard utf8.count == other.utf8.count else { return false }
    var lhs = utf8.makeIterator()
    var rhs = other.utf8.makeIterator()
    while true {
      switch (lhs.next(), rhs.next()) {
      case (nil, nil):
        return true
      case (let a?, let b?):
        if a != b && a.asciiLowercased != b.asciiLowercased {
          return false
        }
      default:
        return false
      }
    }
  }
}

extension UInt8 {
  var asciiLowercased: UInt8 {
    (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z")) ? self | 0x20 : self
  }
}

/// An ordered list of header fields. Lookup by name ignores ASCII case; order and repeated fields
/// are kept as received (or as added).
///
/// A request's headers are not copied out of libmicrohttpd up front: they are looked up in its
/// buffer when asked for, which most handlers do for one or two fields. That works only while
/// the handler runs; afterwards such headers read as empty.
public struct HTTPHeaders: Sendable {
  private var stored: [(String, String)]
  /// Set for a request's headers until one is added or replaced here.
  private var received: ReceivedHeaders?

  public init(_ pairs: [(String, String)] = []) {
    self.stored = pairs
    self.received = nil
  }

  init(received: ReceivedHeaders) {
    self.stored = []
    self.received = received
  }

  /// Every field in order.
  public var pairs: [(String, String)] { received?.all() ?? stored }

  /// The first value of the field `name`, compared without regard to ASCII case.
  public subscript(name: String) -> String? {
    if let received { return received.first(name) }
    for (key, value) in stored where key.equalsIgnoringASCIICase(name) {
      return value
    }
    return nil
  }

  /// Calls `body` with the bytes of the first value of `name` (nil when absent), without making a
  /// `String` of it: for values that are only compared, such as a token.
  /// Inlinable, so that each caller gets a copy for its own `Result`: a generic call across
  /// modules goes through witness tables, which cost more than the lookup.
  @inlinable
  public func withFirstValue<Result>(
    _ name: String, _ body: (UnsafeBufferPointer<UInt8>?) -> Result
  ) -> Result {
    if isReceived { return body(receivedValue(name)) }
    guard var value = self[name] else { return body(nil) }
    return value.withUTF8 { body($0) }
  }

  @usableFromInline var isReceived: Bool { received != nil }

  /// The first value of `name` in a received request's headers, where libmicrohttpd keeps it:
  /// valid only while the handler runs.
  @usableFromInline func receivedValue(_ name: String) -> UnsafeBufferPointer<UInt8>? {
    received?.firstValue(name)
  }

  /// Every value of the field `name`, in order.
  public func values(_ name: String) -> [String] {
    pairs.compactMap { $0.0.equalsIgnoringASCIICase(name) ? $0.1 : nil }
  }

  /// Appends a field; an existing field of the same name is kept.
  public mutating func add(_ name: String, _ value: String) {
    materialize()
    stored.append((name, value))
  }

  /// Removes every field named `name`, then appends `name: value`.
  public mutating func replace(_ name: String, _ value: String) {
    materialize()
    stored.removeAll { $0.0.equalsIgnoringASCIICase(name) }
    stored.append((name, value))
  }

  public var isEmpty: Bool { pairs.isEmpty }

  public var count: Int { pairs.count }

  private mutating func materialize() {
    guard let received else { return }
    stored = received.all()
    self.received = nil
  }
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

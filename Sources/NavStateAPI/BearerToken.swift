/// Reads `Authorization: Bearer <token>` (RFC 6750) in place.
enum BearerToken {
  /// Where the token lies in the header's bytes: after the scheme "Bearer" (any case, leading
  /// spaces allowed) and at least one space, without surrounding spaces and tabs. Nil when the
  /// scheme is another or the token is empty.
  static func range(in header: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
    let space = UInt8(ascii: " ")
    let tab = UInt8(ascii: "\t")
    var start = 0
    while start < header.count && header[start] == space { start += 1 }
    let scheme = "bearer".utf8
    guard header.count - start > scheme.count else { return nil }
    var index = start
    for expected in scheme {
      guard header[index].asciiLowercased == expected else { return nil }
      index += 1
    }
    guard header[index] == space else { return nil }
    var end = header.count
    while index < end && (header[index] == space || header[index] == tab) { index += 1 }
    while end > index && (header[end - 1] == space || header[end - 1] == tab) { end -= 1 }
    return index < end ? index..<end : nil
  }

  /// The token's bytes within the header (nil: no bearer token).
  static func token(in header: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
    range(in: header).map { UnsafeBufferPointer(rebasing: header[$0]) }
  }
}

extension UInt8 {
  fileprivate var asciiLowercased: UInt8 {
    (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z")) ? self | 0x20 : self
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A request target's parts ("/path?query").
enum RequestTarget {
  /// Where the "?" that starts the query lies, if there is one: found with `memchr`, since a
  /// byte loop over a session's path costs about 200 instructions, twice per request.
  static func queryMark(in target: UnsafeBufferPointer<UInt8>) -> Int? {
    first(UInt8(ascii: "?"), in: target)
  }

  /// Where the first "%" lies, if a part of the path holds an escape.
  static func escapeMark(in part: UnsafeBufferPointer<UInt8>) -> Int? {
    first(UInt8(ascii: "%"), in: part)
  }

  private static func first(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let base = bytes.baseAddress, let found = memchr(base, Int32(byte), bytes.count) else {
      return nil
    }
    return UnsafeRawPointer(found) - UnsafeRawPointer(base)
  }
}

extension RequestTarget {
  /// A target in absolute form (`http://host:8080/healthz?x`, RFC 9112 §3.2.2), as its
  /// authority and the origin form it stands for (`/healthz?x`); nil for any other target.
  /// Servers must accept it, though only proxies are normally sent it.
  static func absoluteForm(_ target: String) -> (authority: Substring, originForm: String)? {
    // Nearly every target is in origin form: one byte decides, with no String work.
    guard let first = target.utf8.first, first | 0x20 == UInt8(ascii: "h") else { return nil }
    let lowered = target.prefix(8).lowercased()
    let schemeLength: Int
    if lowered.hasPrefix("http://") {
      schemeLength = 7
    } else if lowered.hasPrefix("https://") {
      schemeLength = 8
    } else {
      return nil
    }
    let rest = target.utf8.dropFirst(schemeLength)
    let authorityEnd =
      rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
    let authority = Substring(rest[rest.startIndex..<authorityEnd])
    let remainder = Substring(rest[authorityEnd...])
    return (authority, remainder.hasPrefix("/") ? String(remainder) : "/" + remainder)
  }
}

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

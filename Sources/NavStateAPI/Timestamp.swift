#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Wall-clock time in milliseconds since 1970, formatted as RFC 3339 UTC without Foundation's
/// date formatters, which cost more than the rest of a state response.
public struct Timestamp: Sendable, Comparable, Hashable {
  public var milliseconds: Int64

  public init(milliseconds: Int64) {
    self.milliseconds = milliseconds
  }

  public static func now() -> Timestamp {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Timestamp(milliseconds: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
  }

  public func adding(seconds: Double) -> Timestamp {
    Timestamp(milliseconds: milliseconds + Int64(seconds * 1000))
  }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.milliseconds < rhs.milliseconds
  }

  /// `2026-11-22T18:00:00.123Z` as bytes, built without allocating: every state response
  /// carries three of these.
  public func withRFC3339<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    var seconds = time_t(milliseconds / 1000)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
      func put(_ value: Int32, width: Int, at offset: Int) {
        var remaining = Int(value)
        for position in stride(from: offset + width - 1, through: offset, by: -1) {
          text[position] = UInt8(ascii: "0") + UInt8(remaining % 10)
          remaining /= 10
        }
      }
      put(parts.tm_year + 1900, width: 4, at: 0)
      put(parts.tm_mon + 1, width: 2, at: 5)
      put(parts.tm_mday, width: 2, at: 8)
      put(parts.tm_hour, width: 2, at: 11)
      put(parts.tm_min, width: 2, at: 14)
      put(parts.tm_sec, width: 2, at: 17)
      put(Int32(milliseconds % 1000), width: 3, at: 20)
      text[4] = UInt8(ascii: "-")
      text[7] = UInt8(ascii: "-")
      text[10] = UInt8(ascii: "T")
      text[13] = UInt8(ascii: ":")
      text[16] = UInt8(ascii: ":")
      text[19] = UInt8(ascii: ".")
      text[23] = UInt8(ascii: "Z")
      return body(UnsafeBufferPointer(text))
    }
  }

  /// `2026-11-22T18:00:00.123Z`
  public var rfc3339: String {
    withRFC3339 { String(decoding: $0, as: UTF8.self) }
  }
}

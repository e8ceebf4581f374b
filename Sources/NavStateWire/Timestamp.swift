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
    let (days, dayMilliseconds) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
    let (dayNumber, millisecond) =
      dayMilliseconds < 0 ? (days - 1, dayMilliseconds + 86_400_000) : (days, dayMilliseconds)
    let (year, month, day) = Self.civilDate(daysSince1970: dayNumber)
    let secondOfDay = millisecond / 1000
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
      // Two digits copied from a table: a division and a remainder by 10 for each pair cost
      // about 450 instructions a state response.
      @inline(__always)
      func two(_ value: Int64, at offset: Int) {
        let digits = Self.digitPairs.utf8Start + Int(value) &* 2
        text[offset] = digits[0]
        text[offset + 1] = digits[1]
      }
      let yearValue = min(max(year, 0), 9999)
      two(yearValue / 100, at: 0)
      two(yearValue % 100, at: 2)
      two(month, at: 5)
      two(day, at: 8)
      two(secondOfDay / 3600, at: 11)
      two(secondOfDay / 60 % 60, at: 14)
      two(secondOfDay % 60, at: 17)
      let fraction = millisecond % 1000
      text[20] = UInt8(ascii: "0") + UInt8(fraction / 100)
      two(fraction % 100, at: 21)
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

  /// "00" to "99", back to back.
  private static let digitPairs: StaticString = """
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899
    """

  /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
  /// `civil_from_days`): integer arithmetic only, no time-zone machinery.
  package static func civilDate(daysSince1970 days: Int64) -> (
    year: Int64, month: Int64, day: Int64
  ) {
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return (year, month, day)
  }

  /// `2026-11-22T18:00:00.123Z`
  public var rfc3339: String {
    withRFC3339 { String(decoding: $0, as: UTF8.self) }
  }
}

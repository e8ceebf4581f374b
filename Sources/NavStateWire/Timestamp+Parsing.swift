extension Timestamp {
  /// Reads an RFC 3339 time (`2026-11-22T18:00:00Z`, `2026-11-22T18:00:00.123+01:00`): a
  /// fraction beyond milliseconds is cut off; nil for anything else.
  public init?(rfc3339 text: String) {
    let bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes.count <= 40 else { return nil }
    func number(_ start: Int, _ count: Int) -> Int64? {
      var value: Int64 = 0
      for index in start..<start + count {
        let byte = bytes[index]
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(5, 2),
      bytes[7] == UInt8(ascii: "-"), let day = number(8, 2),
      bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
      let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"), let minute = number(14, 2),
      bytes[16] == UInt8(ascii: ":"), let second = number(17, 2),
      (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
    else { return nil }
    var index = 19
    var millis: Int64 = 0
    if bytes[index] == UInt8(ascii: ".") {
      index += 1
      var digits = 0
      while index < bytes.count, bytes[index] >= UInt8(ascii: "0"),
        bytes[index] <= UInt8(ascii: "9")
      {
        if digits < 3 { millis = millis * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
        digits += 1
        index += 1
      }
      guard digits > 0 else { return nil }
      for _ in digits..<max(digits, 3) { millis *= 10 }
    }
    guard index < bytes.count else { return nil }
    var offsetMinutes: Int64 = 0
    switch bytes[index] {
    case UInt8(ascii: "Z"), UInt8(ascii: "z"):
      guard index + 1 == bytes.count else { return nil }
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      guard index + 6 == bytes.count, let hours = number(index + 1, 2),
        bytes[index + 3] == UInt8(ascii: ":"), let minutes = number(index + 4, 2), hours < 24,
        minutes < 60
      else { return nil }
      offsetMinutes = (hours * 60 + minutes) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
    default:
      return nil
    }
    let days = Self.daysSince1970(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
    self.init(milliseconds: seconds * 1000 + millis)
  }

  /// Howard Hinnant's `days_from_civil`, the inverse of ``civilDate(daysSince1970:)``.
  package static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}

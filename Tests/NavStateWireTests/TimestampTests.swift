import Testing

@testable import NavStateWire

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct TimestampTests {
  private func text(_ timestamp: Timestamp) -> String {
    timestamp.withRFC3339 { String(decoding: $0, as: UTF8.self) }
  }

  /// The same instant as the C library's `gmtime_r` formats it.
  private func reference(_ milliseconds: Int64) -> String {
    var seconds = time_t(milliseconds / 1000)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func pad(_ value: Int32, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
      + "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))"
      + ".\(pad(Int32(milliseconds % 1000), 3))Z"
  }

  @Test func knownInstants() {
    #expect(text(Timestamp(milliseconds: 0)) == "1970-01-01T00:00:00.000Z")
    #expect(text(Timestamp(milliseconds: 951_782_400_000)) == "2000-02-29T00:00:00.000Z")
    #expect(text(Timestamp(milliseconds: 946_684_799_999)) == "1999-12-31T23:59:59.999Z")
    #expect(text(Timestamp(milliseconds: 4_107_542_400_000)) == "2100-03-01T00:00:00.000Z")
  }

  @Test func agreesWithTheCLibraryAcrossCenturies() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      // 1970 to about 2400, every part of a day.
      let milliseconds = Int64.random(in: 0..<13_569_465_600_000, using: &generator)
      #expect(text(Timestamp(milliseconds: milliseconds)) == reference(milliseconds))
    }
  }
}

import Testing

@testable import NavStateAPI

@Suite struct StoreExpositionTests {
  @Test func eachSeriesHasHelpTypeAndItsValue() {
    var bytes: [UInt8] = []
    StoreExposition.render(
      StoreExposition.Values(
        liveSessions: 3, liveCoordinators: 12, openStreams: 1, expiredSessions: 7,
        eventsSent: 40, memoryAccounted: 123_456, memoryBudget: 1_073_741_824, feedItems: 5,
        feedBytes: 900),
      into: &bytes)
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    let expected: [(String, String, String)] = [
      ("navstate_live_sessions", "gauge", "3"),
      ("navstate_live_coordinators", "gauge", "12"),
      ("navstate_open_event_streams", "gauge", "1"),
      ("navstate_sessions_expired_total", "counter", "7"),
      ("navstate_events_sent_total", "counter", "40"),
      ("navstate_memory_accounted_bytes", "gauge", "123456"),
      ("navstate_memory_budget_bytes", "gauge", "1073741824"),
      ("navstate_feed_items", "gauge", "5"),
      ("navstate_feed_bytes", "gauge", "900"),
    ]
    #expect(lines.count == 3 * expected.count)
    for (index, (name, type, value)) in expected.enumerated() {
      #expect(lines[3 * index].hasPrefix("# HELP \(name) "))
      #expect(lines[3 * index + 1] == "# TYPE \(name) \(type)")
      #expect(lines[3 * index + 2] == "\(name) \(value)")
    }
  }

  @Test func sampleValuesAreDecimalIntegers() {
    for value in [0, 9, 10, -1, Int.max, Int.min] {
      var bytes: [UInt8] = []
      StoreExposition.appendDecimal(value, to: &bytes)
      #expect(String(decoding: bytes, as: UTF8.self) == String(value))
    }
  }
}

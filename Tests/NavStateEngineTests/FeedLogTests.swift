import NavStateWire
import NavigationCore
import Testing

@testable import NavStateEngine

/// The feed's own rules, in memory: numbering, what readers may see, retention.
@Suite struct FeedLogTests {
  private func item(_ sequence: UInt64, screen: String = "a") -> FeedItem {
    var item = FeedItem(
      session: SessionID(high: 1, low: sequence),
      at: Timestamp(milliseconds: Int64(sequence) * 1000), graph: "g",
      payload: .screenLeft(screen: FeedScreen(id: CoordinatorID(2), route: screen), durationMs: 5))
    item.sequence = sequence
    return item
  }

  private func sequences(_ log: FeedLog, after: UInt64 = 0) -> [UInt64] {
    var seen: [UInt64] = []
    log.snapshot().forEach(after: after) { item in
      seen.append(item.sequence)
      return true
    }
    return seen
  }

  @Test func anItemIsSeenOnlyOnceEveryLowerNumberIsShownOrGivenUp() {
    let log = FeedLog(retention: 100)
    let first = log.reserve(2)
    let second = log.reserve(1)
    let third = log.reserve(1)
    #expect([first, second, third] == [1, 3, 4])
    log.publish([item(3)])
    log.publish([item(4)])
    // 1 and 2 are still open: a reader must not pass them.
    #expect(sequences(log).isEmpty)
    #expect(log.places.newest == 0)
    log.abandon(first, count: 2)
    #expect(sequences(log) == [3, 4])
    #expect(log.places.newest == 4)
  }

  @Test("a place is never a number given up: a restart numbers on from the newest item kept")
  func numbersGivenUpAreNoPlace() {
    let log = FeedLog(retention: 100)
    log.publish([item(log.reserve(1))])
    let refused = log.reserve(3)
    log.abandon(refused, count: 3)
    #expect(log.places.newest == 1)
    #expect(log.snapshot().newest == 1)
    log.publish([item(log.reserve(1))])
    #expect(log.places.newest == 5)
    #expect(sequences(log) == [1, 5])
  }

  @Test func retentionKeepsAtLeastItsCountAndAtMostTwice() {
    let log = FeedLog(retention: 64)
    for _ in 0..<1000 {
      let number = log.reserve(1)
      log.publish([item(number)])
    }
    let kept = sequences(log)
    #expect(kept.count >= 64 && kept.count <= 128, "\(kept.count)")
    #expect(kept.last == 1000)
    #expect(kept == Array((1001 - UInt64(kept.count))...1000))
    #expect(log.places.oldest == 1000 - UInt64(kept.count))
  }

  @Test func itemsReadBackAreKeptInOrderOnceAndNumberingGoesOnAfterThem() {
    let log = FeedLog(retention: 100)
    log.restore([item(7), item(5), item(6), item(5)])
    #expect(sequences(log) == [5, 6, 7])
    #expect(log.places.oldest == 4)
    #expect(log.reserve(1) == 8)
  }

  @Test func theMemoryItHoldsIsCountedAndGivenBackAsItemsGo() {
    let budget = MemoryBudget(limit: 1 << 30, headroom: 0)
    let log = FeedLog(retention: 8, memory: budget)
    for _ in 0..<100 {
      let number = log.reserve(1)
      log.publish([item(number)])
    }
    #expect(budget.usedBytes == log.footprint)
    #expect(log.footprint > 0 && log.footprint < 8 * 1024)
  }

  @Test func anItemReadsBackAsItWasWritten() {
    let session = SessionID(high: .max, low: 42)
    let at = Timestamp(milliseconds: 1_795_000_000_123)
    let screen = FeedScreen(id: CoordinatorID(3), route: "checkout")
    let payloads: [FeedPayload] = [
      .sessionStarted(graphVersion: 2, root: "dashboard"),
      .sessionEnded(reason: .expired),
      .screenViewed(
        screen: screen,
        params: [
          "item": .string("book"), "count": .int(-3), "price": .number(9.5), "gift": .bool(true),
        ],
        presentation: .sheet, transition: .resume,
        previous: FeedScreen(id: CoordinatorID(1), route: "home"),
        graphVersion: 2),
      .screenViewed(
        screen: screen, params: [:], presentation: .root, transition: .start, previous: nil,
        graphVersion: 1),
      .screenLeft(screen: screen, durationMs: 1234),
      .navigationRedirected(route: "checkout", redirect: "verifyEmail"),
      .pendingApplied(route: "checkout"),
      .pendingDropped(route: "checkout", reason: .cancelled),
      .contextChanged(keys: ["a", "b"]),
      .sessionMigrated(from: 1, to: 3),
      .sessionRestored(from: 7),
    ]
    var items = payloads.enumerated().map { index, payload in
      FeedItem(session: session, at: at, graph: "zumry", payload: payload)
    }
    for index in items.indices { items[index].sequence = 123_456_789 + UInt64(index) }
    var reader = ByteReader(FeedItem.encode(items))
    #expect(FeedItem.decode(&reader) == items)
    let encoded = FeedItem.encode(items)
    for cut in [1, 3, 10, encoded.count / 2] {
      var damaged = ByteReader(Array(encoded.dropLast(cut)))
      #expect(FeedItem.decode(&damaged) == nil)
    }
  }

  @Test func cursorsNameTheirFeedAndNothingElseReadsAsOne() {
    let format = FeedCursorFormat(node: "east-1", epoch: 0xAB)
    let cursor = format.string(42)
    #expect(cursor == "east-1.000000ab-42")
    #expect(cursor.count <= 64)
    #expect(format.sequence(of: Substring(cursor)) == 42)
    #expect(FeedCursorFormat(node: "east-1", epoch: 0xAC).sequence(of: Substring(cursor)) == nil)
    #expect(FeedCursorFormat(node: "west", epoch: 0xAB).sequence(of: Substring(cursor)) == nil)
    for text in ["", "east-1.000000ab-", "east-1.000000ab-x1", "east-1.ab-1", "east-1.000000ab-+1"]
    {
      #expect(format.sequence(of: Substring(text)) == nil, "\(text)")
    }
    let longest = FeedCursorFormat(node: String(repeating: "n", count: 32), epoch: .max)
    #expect(longest.string(.max).count <= 64)
  }
}

/// Funnels over views with times of their own.
@Suite struct FunnelTests {
  private func views(_ list: [(Int64, String)]) -> [(at: Timestamp, screen: String)] {
    list.map { (Timestamp(milliseconds: $0.0 * 1000), $0.1) }
  }

  @Test func stepsInOrderWithinTheTimeOfTheFirstWithMediansAndExits() {
    let funnel = Funnel(
      graph: "g", steps: ["home", "cart", "pay"], withinSeconds: 60, since: nil, until: nil)
    let report = funnel.report([
      SessionID(high: 0, low: 1): views([(0, "home"), (10, "cart"), (20, "pay")]),
      SessionID(high: 0, low: 2): views([(0, "home"), (30, "cart"), (40, "help")]),
      SessionID(high: 0, low: 3): views([(0, "home"), (5, "help")]),
      // Too late: cart 100 s after home counts as not reached.
      SessionID(high: 0, low: 4): views([(0, "home"), (100, "cart")]),
      // Out of order: pay before cart reaches cart only.
      SessionID(high: 0, low: 5): views([(0, "pay"), (1, "home"), (2, "cart")]),
      SessionID(high: 0, low: 6): views([(0, "cart")]),
    ])
    #expect(report.steps.map(\.sessions) == [5, 3, 1])
    #expect(report.steps[0].medianSecondsFromPrevious == nil)
    #expect(report.steps[1].medianSecondsFromPrevious == 10)
    #expect(report.steps[2].medianSecondsFromPrevious == 10)
    #expect(
      report.exits == [
        Funnel.Exit(after: "home", to: "cart", sessions: 1),
        Funnel.Exit(after: "home", to: "help", sessions: 1),
        Funnel.Exit(after: "cart", to: nil, sessions: 1),
        Funnel.Exit(after: "cart", to: "help", sessions: 1),
      ])
  }

  @Test func atMostTenExitsPerStepMostSessionsFirst() {
    let funnel = Funnel(graph: "g", steps: ["a", "b"], withinSeconds: 60, since: nil, until: nil)
    var sessions: [SessionID: [(at: Timestamp, screen: String)]] = [:]
    for index in 0..<30 {
      let elsewhere = "x\(index % 12)"
      sessions[SessionID(high: 0, low: UInt64(index))] = views([(0, "a"), (1, elsewhere)])
    }
    let report = funnel.report(sessions)
    #expect(report.exits.count == 10)
    #expect(report.exits.map(\.sessions) == report.exits.map(\.sessions).sorted(by: >))
    #expect(report.exits.first?.sessions == 3)
  }
}

/// RFC 3339 times read back (funnels' `since` and `until`).
@Suite struct TimestampParsingTests {
  @Test func readsWhatTheServerWritesAndOffsets() {
    let now = Timestamp(milliseconds: 1_795_000_000_123)
    #expect(Timestamp(rfc3339: now.rfc3339) == now)
    #expect(Timestamp(rfc3339: "1970-01-01T00:00:00Z")?.milliseconds == 0)
    #expect(Timestamp(rfc3339: "1970-01-01T01:00:00+01:00")?.milliseconds == 0)
    #expect(Timestamp(rfc3339: "2000-02-29T12:00:00.5Z")?.milliseconds == 951_825_600_500)
    for bad in [
      "", "yesterday", "2026-13-01T00:00:00Z", "2026-11-27 00:00:00Z", "2026-11-27T00:00:00",
    ] {
      #expect(Timestamp(rfc3339: bad) == nil, "\(bad)")
    }
  }
}

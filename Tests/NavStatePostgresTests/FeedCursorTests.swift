import Testing

@testable import NavStatePostgres

/// The shared feed's cursors: `<epoch>-<tx>-<id>`, read back exactly, and anything else refused.
@Suite struct FeedCursorTests {
  let cursors = FeedCursorText(epoch: 0xa2a3_0728)

  @Test func readsBackWhatItWrites() {
    for place in [
      FeedPlace.start, FeedPlace(tx: 729, id: 2), FeedPlace.before(frontier: 800),
      FeedPlace(tx: .max, id: .max),
    ] {
      let text = cursors.string(place)
      #expect(text.utf8.count <= 49)
      #expect(cursors.place(text) == place, "\(text)")
    }
    #expect(cursors.string(FeedPlace(tx: 729, id: 2)) == "a2a30728-729-2")
    #expect(FeedCursorText(epoch: 1).string(.start) == "00000001-0-0")
  }

  @Test func refusesOtherForms() {
    for text in [
      "", "a2a30728", "a2a30728-1", "a2a30728-1-2-3", "a2a30728--2", "a2a30728-1-",
      "b2a30728-1-2", "a2a3072-1-2", "a2a30728-x-2", "a2a30728-1-+2", "a2a30728-1--2",
      "n1.a2a30728-5", "a2a30728-18446744073709551616-1", "a2a30728-1-9223372036854775808",
      "a2a30728-1-" + String(repeating: "0", count: 60), "+a2a3072-1-2", "A2A30728-1-2",
      "a2a30728-1-2" + String(repeating: " ", count: 60),
    ] {
      #expect(cursors.place(text) == nil, "\(text)")
    }
  }

  @Test func placesOrderByTransactionThenItem() {
    #expect(FeedPlace(tx: 5, id: 100) < FeedPlace(tx: 6, id: 1))
    #expect(FeedPlace(tx: 6, id: 1) < FeedPlace(tx: 6, id: 2))
    // After every item of the transactions before the frontier, before any of the frontier's.
    #expect(FeedPlace(tx: 799, id: 1_000_000) < FeedPlace.before(frontier: 800))
    #expect(FeedPlace.before(frontier: 800) < FeedPlace(tx: 800, id: 1))
  }
}

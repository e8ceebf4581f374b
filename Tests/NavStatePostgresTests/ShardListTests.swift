import Testing

@testable import NavStatePostgres

/// `--shards`: numbers and ranges from 0 to 63, separated by commas.
@Suite struct ShardListTests {
  @Test func readsNumbersAndRanges() {
    #expect(PostgresSettings.shards("0-20,42") == Array(0...20) + [42])
    #expect(PostgresSettings.shards("63") == [63])
    #expect(PostgresSettings.shards("0-63") == Array(0...63))
    #expect(PostgresSettings.shards("5,1-2,2") == [1, 2, 5], "in order, without repeats")
  }

  @Test func refusesAnythingElse() {
    for text in [
      "", "64", "0-64", "5-3", "-1", "1-", "-", "a", "1,,2", "1,", "0-6-9", " 1", "1 ", "+1",
      "٣", "1.5",
    ] {
      #expect(PostgresSettings.shards(text) == nil, "\(text)")
    }
  }
}

import NavStatePostgres
import PostgresClient
import Testing

/// What goes over the wire to PostgreSQL without a server: parameters in the binary format,
/// arrays as one parameter, and URLs shown without their password.
@Suite struct PostgresWireTests {
  @Test func integersAreEightBytesBigEndian() {
    #expect(PostgresParameter.int64(1).encoded == [0, 0, 0, 0, 0, 0, 0, 1])
    #expect(PostgresParameter.int64(-2).encoded == [255, 255, 255, 255, 255, 255, 255, 254])
    #expect(PostgresParameter.int64(1).type == 20)
  }

  @Test func textAndBytesGoAsTheyAre() {
    #expect(PostgresParameter.text("né").encoded == Array("né".utf8))
    #expect(PostgresParameter.bytes([0, 255, 7]).encoded == [0, 255, 7])
    #expect(PostgresParameter.null.encoded == nil)
    #expect(PostgresParameter.bool(true).encoded == [1])
  }

  @Test func anArrayIsOneDimensionWithEachElementAfterItsLength() {
    let encoded = PostgresParameter.bytesArray([[1, 2], [], [3]]).encoded
    let expected: [UInt8] =
      [0, 0, 0, 1]  // one dimension
      + [0, 0, 0, 0]  // no nulls
      + [0, 0, 0, 17]  // bytea
      + [0, 0, 0, 3, 0, 0, 0, 1]  // three elements from index 1
      + [0, 0, 0, 2, 1, 2] + [0, 0, 0, 0] + [0, 0, 0, 1, 3]
    #expect(encoded == expected)
    #expect(PostgresParameter.bytesArray([]).type == 1001)
    #expect(PostgresParameter.textArray(["a"]).type == 1009)
    #expect(PostgresParameter.int64Array([5]).type == 1016)
  }

  @Test func anEmptyArrayHasNoDimension() {
    #expect(PostgresParameter.textArray([]).encoded == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25])
  }

  @Test func int64ArraysHoldEightByteElements() {
    let encoded = PostgresParameter.int64Array([258]).encoded ?? []
    #expect(encoded.suffix(12) == [0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 1, 2])
  }

  @Test func passwordsNeverReachTheLog() {
    #expect(
      PostgresURL.redacted("postgres://navstate:s3cret@db1:5432,db2/navstate")
        == "postgres://navstate:***@db1:5432,db2/navstate")
    #expect(
      PostgresURL.redacted("postgres://navstate@db/navstate") == "postgres://navstate@db/navstate")
    #expect(
      PostgresURL.redacted("host=db port=5432 password=s3cret user=navstate")
        == "host=db port=5432 password=*** user=navstate")
  }

  @Test func aServerThatIsNotThereIsAnErrorWithinTheDeadline() {
    // Port 1 on loopback refuses at once: no wait for the deadline.
    #expect(throws: PostgresError.self) {
      _ = try PostgresConnection("postgres://postgres@127.0.0.1:1/postgres", timeout: 2)
    }
  }
}

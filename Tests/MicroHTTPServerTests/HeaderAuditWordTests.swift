import XCTest

@testable import MicroHTTPServer

/// The audit's word-at-a-time check of field names against the byte-by-byte rule it stands in
/// for: every byte value, at every position of a word otherwise made of letters and dashes.
final class HeaderAuditWordTests: XCTestCase {
  private func word(_ bytes: [UInt8]) -> UInt64 {
    bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
  }

  func testEveryByteAtEveryPosition() {
    let base = Array("Con-tEnt".utf8)
    XCTAssertTrue(HeaderBlockAudit.isLettersAndDashes(word(base)))
    for position in 0..<8 {
      for value in 0...255 {
        var bytes = base
        bytes[position] = UInt8(value)
        let scalar = Unicode.Scalar(UInt8(value))
        let expected = (value < 0x80 && scalar.properties.isAlphabetic) || value == 0x2D
        XCTAssertEqual(
          HeaderBlockAudit.isLettersAndDashes(word(bytes)), expected,
          "byte \(value) at \(position)")
      }
    }
  }

  func testNamesWithOtherTokenCharactersStillPass() {
    // The word check only speeds up the common case: a digit or `_` falls back to the table.
    let block = HardeningUnitTests.ParsedBlock(fields: [
      ("X-Request-Id-2", "a"), ("Accept_Language_Override", "b"), ("Content-Type", "c"),
    ])
    XCTAssertNil(block.problem)
  }
}

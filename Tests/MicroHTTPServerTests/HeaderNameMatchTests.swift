import XCTest

@testable import MicroHTTPServer

/// Field names compare without regard to ASCII case, eight bytes at a time.
final class HeaderNameMatchTests: XCTestCase {
  private func equal(_ received: String, _ wanted: String) -> Bool {
    let left = Array(received.utf8)
    let right = Array(wanted.utf8)
    guard left.count == right.count else { return false }
    return left.withUnsafeBufferPointer { left in
      right.withUnsafeBufferPointer { right in
        FieldName.equal(left.baseAddress!, right.baseAddress!, count: left.count)
      }
    }
  }

  func testCaseIsIgnoredAtEveryLength() {
    for name in ["A", "If-Match", "Content-Type", "Authorization", "X-Forwarded-For-And-More"] {
      XCTAssertTrue(equal(name.lowercased(), name), name)
      XCTAssertTrue(equal(name.uppercased(), name), name)
      XCTAssertTrue(equal(name, name), name)
    }
  }

  func testADifferenceAnywhereIsSeen() {
    let name = "Idempotency-Key-Twenty"
    for position in 0..<name.utf8.count {
      var bytes = Array(name.utf8)
      bytes[position] = bytes[position] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
      XCTAssertFalse(equal(String(decoding: bytes, as: UTF8.self), name), "at \(position)")
    }
    // Token characters that are not letters keep their difference.
    XCTAssertFalse(equal("Content_Type", "Content-Type"))
    XCTAssertFalse(equal("X.1", "X-1"))
  }
}

import Testing

@testable import NavStateEngine

/// Varints as LEB128 (signed ones zigzagged): every length from one byte to ten reads back.
@Suite struct BinaryCodingTests {
  @Test("unsigned varints of every length read back, each in as many bytes as LEB128 takes")
  func unsignedRoundTrip() {
    var values: [UInt64] = [0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, UInt64.max]
    for shift in stride(from: 7, to: 64, by: 7) { values += [1 << shift - 1, 1 << shift] }
    for value in values {
      var bytes: [UInt8] = [0xAA]
      bytes.appendVarint(value)
      let expectedLength = max(1, (64 - value.leadingZeroBitCount + 6) / 7)
      #expect(bytes.count == 1 + expectedLength, "\(value)")
      var reader = ByteReader(bytes, at: 1)
      #expect(reader.varint() == value)
      #expect(reader.isAtEnd)
    }
  }

  @Test("signed varints read back, negatives included")
  func signedRoundTrip() {
    for value in [0, -1, 1, -64, 64, 1_798_765_432_109, Int.min, Int.max] {
      var bytes: [UInt8] = []
      bytes.appendVarint(value)
      var reader = ByteReader(bytes)
      #expect(reader.signed() == value)
    }
  }
}

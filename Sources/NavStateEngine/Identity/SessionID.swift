/// A session's id: 128 random bits, shown as 22 base64url characters. Held as two words, so a
/// session allocates nothing for it and a lookup hashes two integers, not a string.
package struct SessionID: Hashable, Sendable, CustomStringConvertible {
  /// The id's 128 bits, most significant first.
  package let high: UInt64
  package let low: UInt64

  /// Bits of the id, uniformly random, to spread sessions over shards.
  package var randomBits: UInt64 { low }

  package static func random() -> SessionID {
    var generator = SystemRandomNumberGenerator()
    return SessionID(high: generator.next(), low: generator.next())
  }

  /// A random id whose first character is base64url character `shard` (0 to 63): 122 random
  /// bits, in that shard.
  package static func random(inShard shard: Int) -> SessionID {
    var generator = SystemRandomNumberGenerator()
    let high: UInt64 = generator.next()
    return SessionID(high: high & (UInt64.max >> 6) | UInt64(shard) << 58, low: generator.next())
  }

  /// The shard the id belongs to with `--shards`: its first character's 6 bits.
  package var shard: Int { Int(high >> 58) }

  package init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// Reads the 22 characters `description` gives; nil for any other text (no session has it).
  package init?(_ text: String) {
    var text = text
    guard let id = text.withUTF8({ Self.parse($0) }) else { return nil }
    self = id
  }

  /// The same, from the bytes of a request's path.
  package init?(bytes: UnsafeBufferPointer<UInt8>) {
    guard let id = Self.parse(bytes) else { return nil }
    self = id
  }

  private static func parse(_ text: UnsafeBufferPointer<UInt8>) -> SessionID? {
    guard text.count == 22 else { return nil }
    return SecureRandom.withSextetTable { table in
      // 22 × 6 = 132 bits: ten sextets fill 60 bits of `high`, the eleventh gives it 4 more
      // and `low` 2, ten more give `low` 60, and the last its 2 final bits and four zero bits.
      var high: UInt64 = 0
      var low: UInt64 = 0
      var invalid: UInt8 = 0
      for index in 0..<10 {
        let value = table[Int(text[index])]
        invalid |= value
        high = high << 6 | UInt64(value & 0x3F)
      }
      let straddling = table[Int(text[10])]
      invalid |= straddling
      high = high << 4 | UInt64(straddling & 0x3F) >> 2
      low = UInt64(straddling & 0x3)
      for index in 11..<21 {
        let value = table[Int(text[index])]
        invalid |= value
        low = low << 6 | UInt64(value & 0x3F)
      }
      let last = table[Int(text[21])]
      invalid |= last
      low = low << 2 | UInt64(last & 0x3F) >> 4
      // 0xFF marks a byte outside the alphabet; the four spare bits must be zero.
      guard invalid & 0xC0 == 0, last & 0xF == 0 else { return nil }
      return SessionID(high: high, low: low)
    }
  }

  package var description: String {
    // 22 characters: 21 of 6 bits each, then the last 2 bits and four zero bits.
    String(unsafeUninitializedCapacity: 22) { output in
      var index = 0
      for shift in stride(from: 58, through: 4, by: -6) {
        output[index] = SecureRandom.character(
          of: UInt8(truncatingIfNeeded: high >> UInt64(shift)) & 0x3F)
        index += 1
      }
      // The sextet that straddles the two words: 4 bits of `high`, 2 of `low`.
      output[index] = SecureRandom.character(
        of: UInt8(truncatingIfNeeded: (high & 0xF) << 2 | low >> 62))
      index += 1
      for shift in stride(from: 56, through: 2, by: -6) {
        output[index] = SecureRandom.character(
          of: UInt8(truncatingIfNeeded: low >> UInt64(shift)) & 0x3F)
        index += 1
      }
      output[index] = SecureRandom.character(of: UInt8(truncatingIfNeeded: low & 0x3) << 4)
      return 22
    }
  }

}

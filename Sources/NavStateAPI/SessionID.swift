/// A session's id: 128 random bits, shown as 22 base64url characters. Held as two words, so a
/// session allocates nothing for it and a lookup hashes two integers, not a string.
struct SessionID: Hashable, Sendable, CustomStringConvertible {
  private let high: UInt64
  private let low: UInt64

  /// Bits of the id, uniformly random, to spread sessions over shards.
  var randomBits: UInt64 { low }

  static func random() -> SessionID {
    var generator = SystemRandomNumberGenerator()
    return SessionID(high: generator.next(), low: generator.next())
  }

  private init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// Reads the 22 characters `description` gives; nil for any other text (no session has it).
  init?(_ text: String) {
    var text = text
    guard let id = text.withUTF8({ Self.parse($0) }) else { return nil }
    self = id
  }

  private static func parse(_ text: UnsafeBufferPointer<UInt8>) -> SessionID? {
    guard text.count == 22 else { return nil }
    var high: UInt64 = 0
    var low: UInt64 = 0
    var pending: UInt32 = 0
    var bits: UInt32 = 0
    var produced = 0
    for byte in text {
      guard let value = SecureRandom.sextet(of: byte) else { return nil }
      pending = pending << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        let octet = UInt64(pending >> bits)
        if produced < 8 { high = high << 8 | octet } else { low = low << 8 | octet }
        produced += 1
        pending &= (1 << bits) - 1
      }
    }
    // 22 × 6 = 132 bits: the 16 bytes, then 4 bits that are zero in every id.
    guard produced == 16, pending == 0 else { return nil }
    return SessionID(high: high, low: low)
  }

  var description: String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(16)
    for shift in stride(from: 56, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: high >> UInt64(shift)))
    }
    for shift in stride(from: 56, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: low >> UInt64(shift)))
    }
    return SecureRandom.base64url(bytes)
  }
}

/// Session ids and tokens: random bytes from the system's CSPRNG, written as base64url.
package enum SecureRandom {
  /// 256 bits, as docs/behaviour.md section 6.1 promises for tokens.
  package static func token() -> String { base64url(bytes(32)) }

  /// Whether `token` could be one this service issued: 43 base64url characters.
  package static func isWellFormedToken(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
    guard token.count == 43 else { return false }
    return base64URLTable.withUnsafeBufferPointer { table in
      var all: UInt8 = 1
      for byte in token { all &= table[Int(byte)] }
      return all == 1
    }
  }

  /// 1 for the bytes of the base64url alphabet, 0 for the rest.
  private static let base64URLTable: [UInt8] = (0...255).map { isBase64URL(UInt8($0)) ? 1 : 0 }

  /// 128 bits: not guessable and not a counter.

  /// Eight bytes per draw: each draw from the system generator is a `getrandom` call.
  package static func bytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 7)
    while bytes.count < count {
      let word = generator.next()
      for shift in stride(from: 0, to: 64, by: 8) {
        bytes.append(UInt8(truncatingIfNeeded: word >> shift))
      }
    }
    return Array(bytes.prefix(count))
  }

  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// The base64url character for the 6 bits `sextet` holds.
  package static func character(of sextet: UInt8) -> UInt8 {
    switch sextet {
    case 0..<26: UInt8(ascii: "A") + sextet
    case 26..<52: UInt8(ascii: "a") + sextet - 26
    case 52..<62: UInt8(ascii: "0") + sextet - 52
    case 62: UInt8(ascii: "-")
    default: UInt8(ascii: "_")
    }
  }

  /// The 6 bits a base64url character stands for; nil for any other byte.
  package static func sextet(of byte: UInt8) -> UInt8? {
    let value = sextets[Int(byte)]
    return value < 64 ? value : nil
  }

  /// Calls `body` with a table of 256 entries: each byte's 6 bits in base64url, or 0xFF. For
  /// loops that read every token and id: one lookup of the table, then plain loads.
  package static func withSextetTable<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result)
    -> Result
  {
    sextets.withUnsafeBufferPointer(body)
  }

  /// By byte: its 6 bits in base64url, or 0xFF.
  private static let sextets: [UInt8] = (0...255).map { byte in
    switch UInt8(byte) {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt8(byte) - UInt8(ascii: "A")
    case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt8(byte) - UInt8(ascii: "a") + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0") + 52
    case UInt8(ascii: "-"): 62
    case UInt8(ascii: "_"): 63
    default: 0xFF
    }
  }

  package static func isBase64URL(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
      true
    default: false
    }
  }

  package static func base64url(_ bytes: [UInt8]) -> String {
    var output: [UInt8] = []
    output.reserveCapacity((bytes.count * 4 + 2) / 3)
    var index = 0
    while index < bytes.count {
      let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
      let value =
        UInt32(chunk[0]) << 16 | UInt32(chunk.count > 1 ? chunk[1] : 0) << 8
        | UInt32(chunk.count > 2 ? chunk[2] : 0)
      let characters = chunk.count + 1
      for position in 0..<characters {
        output.append(alphabet[Int((value >> UInt32(18 - 6 * position)) & 0x3F)])
      }
      index += 3
    }
    return String(decoding: output, as: UTF8.self)
  }
}

/// A session's bearer token as its 256 bits: held inline (a session allocates nothing for it)
/// and compared in constant time.
///
/// Clients see it as 43 base64url characters; the last carries 4 bits and two zero bits, so a
/// text with those two bits set is another text, and never matches.
///
/// A session restored from a data directory knows only the SHA-256 digest of its token's text
/// (the files never hold a token): it holds that instead, and a text matches when its digest
/// does.
package struct SessionToken: Sendable {
  private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
  /// `words` hold the digest of the text, not its bits.
  private var isDigest = false

  private init() {}

  /// A token known by the SHA-256 digest of its text (32 bytes).
  package init?(digest: [UInt8]) {
    guard digest.count == 32 else { return nil }
    var words: [UInt64] = [0, 0, 0, 0]
    for (index, byte) in digest.enumerated() {
      words[index / 8] = words[index / 8] << 8 | UInt64(byte)
    }
    self.words = (words[0], words[1], words[2], words[3])
    isDigest = true
  }

  /// The SHA-256 digest of the token's text: what a data directory keeps of it.
  package var digest: [UInt8] {
    isDigest ? bytes : SHA256.hash(SecureRandom.base64url(bytes).utf8)
  }

  /// The words as 32 bytes, most significant first.
  private var bytes: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32)
    for word in [words.0, words.1, words.2, words.3] {
      for shift in stride(from: 56, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
      }
    }
    return bytes
  }

  /// The token a client is given for it.
  package init(issuing text: String) {
    var text = text
    self = text.withUTF8 { Self.decoded($0).token }
  }

  /// Whether `text` (43 base64url characters, see `SecureRandom.isWellFormedToken`) is this
  /// token. Takes the same time whatever the first difference.
  package func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    guard !isDigest else {
      guard let other = SessionToken(digest: SHA256.hash(text)) else { return false }
      let difference =
        (words.0 ^ other.words.0) | (words.1 ^ other.words.1) | (words.2 ^ other.words.2)
        | (words.3 ^ other.words.3)
      return difference == 0 && text.count == 43
    }
    let (other, padding) = Self.decoded(text)
    let difference =
      (words.0 ^ other.words.0) | (words.1 ^ other.words.1) | (words.2 ^ other.words.2)
      | (words.3 ^ other.words.3) | padding
    return difference == 0 && text.count == 43
  }

  /// The bits of 43 base64url characters, and what must be zero in a token: the two bits left
  /// over after 256, and a mark for any byte outside the alphabet. Another length is all marks
  /// (no token has it).
  private static func decoded(_ text: UnsafeBufferPointer<UInt8>) -> (
    token: SessionToken, padding: UInt64
  ) {
    guard text.count == 43 else { return (SessionToken(), .max) }
    return SecureRandom.withSextetTable { table in
      // 43 sextets, most significant first: the words take ten whole sextets each and share the
      // 11th, 22nd and 43rd (4 + 2, 2 + 4, 4 bits and the 2 spare ones). Read ten at a time
      // into one register: this runs on every authorized request.
      var reader = SextetReader(text: text, table: table)
      let eleventh = reader.sextet(10)
      let twentySecond = reader.sextet(21)
      let last = reader.sextet(42)
      var token = SessionToken()
      token.words = (
        reader.ten(from: 0) << 4 | eleventh >> 2,
        (eleventh & 0x3) << 62 | reader.ten(from: 11) << 2 | twentySecond >> 4,
        (twentySecond & 0xF) << 60 | reader.ten(from: 22),
        reader.ten(from: 32) << 4 | last >> 2
      )
      // 0xFF marks a byte outside the alphabet: its top bits show in `outside`.
      return (token, last & 0x3 | UInt64(reader.outside & 0xC0))
    }
  }
}

/// Reads base64url characters as sextets through the table, noting any outside the alphabet.
private struct SextetReader {
  package let text: UnsafeBufferPointer<UInt8>
  package let table: UnsafeBufferPointer<UInt8>
  /// The table's entries or-ed together: 0xFF (outside the alphabet) shows in the top bits.
  package var outside: UInt8 = 0

  package mutating func sextet(_ index: Int) -> UInt64 {
    let entry = table[Int(text[index])]
    outside |= entry
    return UInt64(entry & 0x3F)
  }

  /// Ten sextets from `start`: 60 bits.
  package mutating func ten(from start: Int) -> UInt64 {
    var bits: UInt64 = 0
    for index in start..<(start + 10) { bits = bits << 6 | sextet(index) }
    return bits
  }
}

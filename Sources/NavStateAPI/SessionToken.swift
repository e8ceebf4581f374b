/// A session's bearer token as its 256 bits: held inline (a session allocates nothing for it)
/// and compared in constant time.
///
/// Clients see it as 43 base64url characters; the last carries 4 bits and two zero bits, so a
/// text with those two bits set is another text, and never matches.
///
/// A session restored from a data directory knows only the SHA-256 digest of its token's text
/// (the files never hold a token): it holds that instead, and a text matches when its digest
/// does.
struct SessionToken: Sendable {
  private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
  /// `words` hold the digest of the text, not its bits.
  private var isDigest = false

  private init() {}

  /// A token known by the SHA-256 digest of its text (32 bytes).
  init?(digest: [UInt8]) {
    guard digest.count == 32 else { return nil }
    var words: [UInt64] = [0, 0, 0, 0]
    for (index, byte) in digest.enumerated() {
      words[index / 8] = words[index / 8] << 8 | UInt64(byte)
    }
    self.words = (words[0], words[1], words[2], words[3])
    isDigest = true
  }

  /// The SHA-256 digest of the token's text: what a data directory keeps of it.
  var digest: [UInt8] {
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
  init(issuing text: String) {
    var text = text
    self = text.withUTF8 { Self.decoded($0).token }
  }

  /// Whether `text` (43 base64url characters, see `SecureRandom.isWellFormedToken`) is this
  /// token. Takes the same time whatever the first difference.
  func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
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

  /// The bits of 43 base64url characters (fewer give zero bits), and what must be zero in a
  /// token: the two bits left over after 256, and a mark for any byte outside the alphabet.
  private static func decoded(_ text: UnsafeBufferPointer<UInt8>) -> (
    token: SessionToken, padding: UInt64
  ) {
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 5) { words in
      words.initialize(repeating: 0)
      decode(text, into: words)
      var token = SessionToken()
      token.words = (words[0], words[1], words[2], words[3])
      // The two bits after the 256th are at the top of the fifth word, the marks at its bottom.
      return (token, words[4])
    }
  }

  private static func decode(
    _ text: UnsafeBufferPointer<UInt8>, into words: UnsafeMutableBufferPointer<UInt64>
  ) {
    SecureRandom.withSextetTable { table in
      // 43 × 6 = 258 bits, into four words and two spare bits, most significant first: read as
      // 11 groups of four characters (24 bits), the 44th character taken as "A" (zero bits), as
      // is any character after a shorter text's end. A group per step rather than a character:
      // this runs on every authorized request.
      let length = Swift.min(text.count, 43)
      var outside: UInt8 = 0
      for group in 0..<11 {
        var bits: UInt64 = 0
        for index in (group * 4)..<(group * 4 + 4) {
          let entry = index < length ? table[Int(text[index])] : 0
          outside |= entry & 0xC0
          bits = bits << 6 | UInt64(entry & 0x3F)
        }
        let position = group * 24
        let word = position >> 6
        let offset = position & 63
        if offset <= 40 {
          words[word] |= bits << UInt64(40 - offset)
        } else {
          words[word] |= bits >> UInt64(offset - 40)
          words[word + 1] |= bits << UInt64(104 - offset)
        }
      }
      words[4] |= UInt64(outside)
    }
  }
}

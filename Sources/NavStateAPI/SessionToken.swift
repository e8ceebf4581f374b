/// A session's bearer token as its 256 bits: held inline (a session allocates nothing for it)
/// and compared in constant time.
///
/// Clients see it as 43 base64url characters; the last carries 4 bits and two zero bits, so a
/// text with those two bits set is another text, and never matches.
struct SessionToken: Sendable {
  private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

  private init() {}

  /// The token a client is given for it.
  init(issuing text: String) {
    var text = text
    self = text.withUTF8 { Self.decoded($0).token }
  }

  /// Whether `text` (43 base64url characters, see `SecureRandom.isWellFormedToken`) is this
  /// token. Takes the same time whatever the first difference.
  func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    let (other, padding) = Self.decoded(text)
    let difference =
      (words.0 ^ other.words.0) | (words.1 ^ other.words.1) | (words.2 ^ other.words.2)
      | (words.3 ^ other.words.3) | padding
    return difference == 0 && text.count == 43
  }

  /// The bits of up to 43 base64url characters, and the two left over after 256 of them.
  private static func decoded(_ text: UnsafeBufferPointer<UInt8>) -> (
    token: SessionToken, padding: UInt64
  ) {
    var token = SessionToken()
    var word: UInt64 = 0
    var bits = 0
    var index = 0
    var padding: UInt64 = 0
    for byte in text.prefix(43) {
      // Only well-formed text is compared (every byte in the alphabet); any other decodes as 0.
      let value = UInt64(SecureRandom.sextet(of: byte) ?? 0)
      if bits + 6 <= 64 {
        word = word << 6 | value
        bits += 6
        if bits == 64 {
          store(&token, index, word)
          index += 1
          word = 0
          bits = 0
        }
      } else {
        // Split across two words: the high part ends this one, the rest starts the next.
        let high = 64 - bits
        store(&token, index, word << high | value >> (6 - high))
        index += 1
        bits = 6 - high
        word = value & ((1 << bits) - 1)
      }
    }
    if index == 4 { padding = word } else if index < 4 { store(&token, index, word << (64 - bits)) }
    return (token, padding)
  }

  private static func store(_ token: inout SessionToken, _ index: Int, _ word: UInt64) {
    switch index {
    case 0: token.words.0 = word
    case 1: token.words.1 = word
    case 2: token.words.2 = word
    case 3: token.words.3 = word
    default: break
    }
  }
}

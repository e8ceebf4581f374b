import Testing

@testable import NavStateEngine

/// A session keeps its token as 256 bits; only the exact text it was issued as matches.
@Suite struct SessionTokenTests {
  private func matches(_ token: SessionToken, _ text: String) -> Bool {
    Array(text.utf8).withUnsafeBufferPointer { token.matches($0) }
  }

  @Test func theIssuedTextMatchesAndEveryOneCharacterChangeDoesNot() {
    for _ in 0..<50 {
      let text = SecureRandom.token()
      let token = SessionToken(issuing: text)
      #expect(matches(token, text))
      var bytes = Array(text.utf8)
      for position in bytes.indices {
        let original = bytes[position]
        bytes[position] = original == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(!matches(token, String(decoding: bytes, as: UTF8.self)), "at \(position)")
        bytes[position] = original
      }
    }
  }

  @Test func theTwoSpareBitsOfTheLastCharacterMustBeZero() {
    // 32 zero bytes are 42 "A"s and a last "A"; "B", "C" and "D" set the spare bits only.
    let zero = String(repeating: "A", count: 43)
    let token = SessionToken(issuing: zero)
    #expect(matches(token, zero))
    for last in ["B", "C", "D"] {
      #expect(!matches(token, String(repeating: "A", count: 42) + last))
    }
    // "E" is the first that changes the token's own last bits.
    #expect(!matches(token, String(repeating: "A", count: 42) + "E"))
  }

  @Test func anotherLengthNeverMatches() {
    let text = SecureRandom.token()
    let token = SessionToken(issuing: text)
    #expect(!matches(token, String(text.dropLast())))
    #expect(!matches(token, text + "A"))
  }

  @Test func tokensOfEveryBitPatternRoundTrip() {
    // Each of the 256 bits set alone: the decoding places every bit where it belongs.
    for bit in 0..<256 {
      var bytes = [UInt8](repeating: 0, count: 32)
      bytes[bit / 8] = 0x80 >> UInt8(bit % 8)
      let text = SecureRandom.base64url(bytes)
      let token = SessionToken(issuing: text)
      #expect(matches(token, text))
      #expect(!matches(token, String(repeating: "A", count: 43)), "bit \(bit)")
    }
  }
}

@Suite struct SessionTokenAlphabetTests {
  @Test func aByteOutsideTheAlphabetNeverMatches() {
    // "_" is 63, the six bits a byte outside the alphabet would otherwise read as.
    let text = String(repeating: "_", count: 42) + "w"
    let token = SessionToken(issuing: text)
    #expect(Array(text.utf8).withUnsafeBufferPointer { token.matches($0) })
    for outsider in ["=", "+", "/", "~", "\u{7F}"] {
      let other = outsider + String(repeating: "_", count: 41) + "w"
      #expect(!Array(other.utf8).withUnsafeBufferPointer { token.matches($0) })
    }
  }
}

import Testing

@testable import NavStateEngine

/// Session ids read back from the text they are shown as, and from nothing else.
@Suite struct SessionIDTests {
  @Test func anIdReadsBackFromItsText() {
    for _ in 0..<1000 {
      let id = SessionID.random()
      let text = id.description
      #expect(text.utf8.count == 22)
      #expect(SessionID(text) == id)
    }
  }

  @Test func otherTextIsNoId() {
    let text = SessionID.random().description
    #expect(SessionID(String(text.dropLast())) == nil)
    #expect(SessionID(text + "A") == nil)
    #expect(SessionID(String(text.dropLast()) + "=") == nil)
    #expect(SessionID(String(text.dropLast()) + "é") == nil)
    #expect(SessionID("") == nil)
    // The last character's four spare bits are zero in every id: "B" sets one of them.
    #expect(SessionID(String(repeating: "A", count: 22)) != nil)
    #expect(SessionID(String(repeating: "A", count: 21) + "B") == nil)
    #expect(SessionID(String(repeating: "A", count: 21) + "Q") != nil)
  }

  @Test func differentIdsHaveDifferentTexts() {
    let ids = (0..<1000).map { _ in SessionID.random() }
    #expect(Set(ids.map(\.description)).count == Set(ids).count)
  }
}

/// An id's text is the base64url of its 16 bytes, as the service has always shown ids.
@Suite struct SessionIDTextTests {
  @Test func theTextIsTheBase64URLOfTheBytes() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<1000 {
      let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let text = SecureRandom.base64url(bytes)
      #expect(SessionID(text)?.description == text)
    }
  }
}

import Testing

@testable import NavStateAPI

@Suite struct BearerTokenTests {
  private func token(_ header: String) -> String? {
    var header = header
    return header.withUTF8 { bytes in
      BearerToken.range(in: bytes).map {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self)
      }
    }
  }

  @Test func readsTheTokenAfterTheScheme() {
    #expect(token("Bearer abc") == "abc")
    #expect(token("bearer abc") == "abc")
    #expect(token("BEARER abc") == "abc")
    #expect(token("  Bearer   abc \t") == "abc")
  }

  @Test func refusesOtherSchemesAndEmptyTokens() {
    #expect(token("Basic abc") == nil)
    #expect(token("Bearer") == nil)
    #expect(token("Bearer ") == nil)
    #expect(token("Bearer \t ") == nil)
    #expect(token("Bearer\tabc") == nil)
    #expect(token("Bearerabc") == nil)
    #expect(token("") == nil)
  }
}

import Testing

@testable import NavStateAPI

@Suite struct ETagTests {
  @Test func versionsQuotedAsWritten() {
    #expect(NavStateService.etag(0) == "\"0\"")
    #expect(NavStateService.etag(7) == "\"7\"")
    #expect(NavStateService.etag(12) == "\"12\"")
    #expect(NavStateService.etag(1_234_567_890_123) == "\"1234567890123\"")
    #expect(NavStateService.etag(Int.max) == "\"\(Int.max)\"")
  }
}

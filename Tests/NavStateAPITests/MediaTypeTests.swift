import Testing

@testable import NavStateAPI

@Suite struct MediaTypeTests {
  @Test func jsonTypesInAnyCaseWithParameters() {
    #expect(isJSONMediaType("application/json"))
    #expect(isJSONMediaType("Application/JSON"))
    #expect(isJSONMediaType(" application/json ; charset=utf-8"))
    #expect(isJSONMediaType("application/merge-patch+json"))
    #expect(isJSONMediaType("application/vnd.api+JSON;x=1"))
  }

  @Test func otherTypesAreNotJSON() {
    #expect(!isJSONMediaType(""))
    #expect(!isJSONMediaType("text/plain"))
    #expect(!isJSONMediaType("application/x-www-form-urlencoded"))
    #expect(!isJSONMediaType("application/jsonx"))
    #expect(!isJSONMediaType("xapplication/json"))
    #expect(!isJSONMediaType("text/plain; note=+json"))
  }
}

import MicroHTTPServer
import Testing

@testable import NavStateAPI

@Suite struct ReturnPreferenceTests {
  private func minimal(_ fields: [String]) -> Bool {
    ReturnPreference.prefersMinimal(HTTPHeaders(fields.map { ("Prefer", $0) }))
  }

  @Test func returnMinimalInItsForms() {
    #expect(minimal(["return=minimal"]))
    #expect(minimal(["Return=Minimal"]))
    #expect(minimal([" return = \"minimal\" "]))
    #expect(minimal(["respond-async, return=minimal; foo=bar"]))
    #expect(minimal(["wait=5", "return=minimal"]))
    #expect(minimal(["return%3Dminimal"]))
  }

  @Test func anythingElseIsTheFullRepresentation() {
    #expect(!minimal([]))
    #expect(!minimal(["return=representation"]))
    #expect(!minimal(["respond-async"]))
    #expect(!minimal(["minimal"]))
    #expect(!minimal(["handling=lenient; return=minimal"]))
  }
}

import NavigationCore
import Testing

@testable import NavStateAPI

/// The compile-time names the JSON writers use are the names the API documents: the raw values.
@Suite struct StateJSONNamesTests {
  private func text(_ name: StaticString) -> String { name.description }

  @Test func presentationsStopReasonsAndEndReasonsAreWrittenAsTheirRawValues() {
    for presentation in Presentation.allCases {
      #expect(text(presentation.jsonName) == presentation.rawValue)
    }
    let reasons: [StopReason] = [.pop, .dismiss, .replace, .reset, .teardown, .sessionEnded]
    for reason in reasons { #expect(text(reason.jsonName) == reason.rawValue) }
    for reason in [SessionEndReason.deleted, .expired] {
      #expect(text(reason.jsonName) == reason.rawValue)
    }
  }
}

import NavigationCore
import Testing

@testable import NavStateWire

/// The compile-time names the JSON writers use are the names the API documents: the raw values.
@Suite struct StateJSONNamesTests {
  private func text(_ name: StaticString) -> String { name.description }

  @Test func presentationsStopReasonsAndEndReasonsAreWrittenAsTheirRawValues() {
    for presentation in Presentation.allCases {
      #expect(text(presentation.jsonName) == presentation.rawValue)
    }
    for reason in StopReason.allCases { #expect(text(reason.jsonName) == reason.rawValue) }
    for reason in SessionEndReason.allCases { #expect(text(reason.jsonName) == reason.rawValue) }
  }
}

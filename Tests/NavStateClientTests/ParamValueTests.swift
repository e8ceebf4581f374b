import Foundation
import NavStateTestSupport
import Testing

@testable import NavStateClient

/// Params have no type in the contract (generators make them "any JSON value"); the Swift client
/// reads them as its own `ParamValue`, an integer as an exact `Int64`.
@Suite("Params through the Swift client")
struct ParamValueTests {
  @Test("a JSON integer is an exact Int64, never a Bool or a Double; each kind encodes back")
  func json() throws {
    let text = """
      {"big": 9007199254740993, "max": 9223372036854775807, "min": -9223372036854775808,
       "one": 1, "zero": 0, "half": 1.5, "tenth": 0.1, "digits": "42", "yes": true, "no": false}
      """
    let params = try JSONDecoder().decode(Params.self, from: Data(text.utf8))
    #expect(
      params == [
        "big": .int(9_007_199_254_740_993), "max": .int(.max), "min": .int(.min), "one": .int(1),
        "zero": .int(0), "half": .number(1.5), "tenth": .number(0.1), "digits": .string("42"),
        "yes": .bool(true), "no": .bool(false),
      ])

    let encodings: [(ParamValue, String)] = [
      (.int(9_007_199_254_740_993), "9007199254740993"), (.int(.min), "-9223372036854775808"),
      (.number(1.5), "1.5"), (.number(0.1), "0.1"), (.string("42"), "\"42\""),
      (.bool(true), "true"), (.bool(false), "false"),
    ]
    for (value, expected) in encodings {
      let encoded = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
      #expect(encoded == expected)
      #expect(try JSONDecoder().decode(ParamValue.self, from: Data(encoded.utf8)) == value)
    }

    for notAParam in ["null", "[1]", "{\"a\": 1}"] {
      #expect(throws: DecodingError.self) {
        try JSONDecoder().decode(ParamValue.self, from: Data(notAParam.utf8))
      }
    }
  }

  @Test("an int, a number, a string and a bool param come back exactly from a live server")
  func live() async throws {
    let graph = """
      {"name": "typed", "root": "start", "routes": [
        {"name": "start", "next": ["item"]},
        {"name": "item", "params": {
          "id": {"type": "int", "required": true}, "ratio": {"type": "number", "required": true},
          "label": {"type": "string", "required": true}, "flag": {"type": "bool", "required": true}}}
      ]}
      """
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("navstate-typed-\(UUID().uuidString).json")
    try Data(graph.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let live = try LiveServer(["--graph", file.path])
    defer { live.server.stop() }

    let (session, _) = try await live.create(graph: "typed")
    let params: Params = [
      "id": .int(9_007_199_254_740_993), "ratio": .number(0.1), "label": "9007199254740993",
      "flag": true,
    ]
    let pushed = try await session.push("item", params: params)
    #expect(pushed.state.path.last?.params == params)
    guard case .started(_, _, _, "item", let started, _, _) = pushed.events.first else {
      Issue.record("expected item to start, got \(pushed.events)")
      return
    }
    #expect(started == params)
    #expect(try await session.state().path.last?.params == params)

    var extremes = params
    extremes["id"] = .int(.max)
    extremes["ratio"] = .number(-1.5e300)
    extremes["flag"] = false
    let replaced = try await session.replace("item", params: extremes)
    #expect(replaced.state.path.last?.params == extremes)
    extremes["id"] = .int(.min)
    #expect(try await session.replace("item", params: extremes).state.path.last?.params == extremes)
  }
}

import NavJSON
import NavigationCore
import Testing

@testable import NavStateWire

/// The fast path must read exactly what the general path reads, and leave everything else to it.
@Suite struct HotCommandDecoderTests {
  private func hot(_ operation: String, _ text: String) -> Command? {
    guard let operation = Operation(name: operation) else { return nil }
    return Array(text.utf8).withUnsafeBufferPointer {
      HotCommandDecoder.command(operation, body: $0)
    }
  }

  private func general(_ operation: String, _ text: String) -> Command? {
    guard let value = try? JSONParser.parse(text) else { return nil }
    return try? CommandDecoder.command(operation, body: value)
  }

  @Test func readsTheCommonShapes() {
    #expect(
      hot("push", #"{"route":"detail","params":{"id":42}}"#)
        == .push(RouteRequest(route: "detail", params: JSONObject(["id": 42]))))
    #expect(hot("pop", "{}") == .pop(.count(1)))
    #expect(hot("pop", #" { "toRoot" : true } "#) == .pop(.toRoot))
    #expect(
      hot("present", #"{"route":"settings","style":"fullScreenCover"}"#)
        == .present(RouteRequest(route: "settings"), style: .fullScreenCover))
    #expect(hot("dismiss", #"{"all":true}"#) == .dismiss(.all))
    #expect(hot("back", "{}") == .back())
    #expect(
      hot("batch", #"{"ops":[{"op":"push","route":"detail","params":{"id":9}},{"op":"pop"}]}"#)
        == .batch([
          .push(RouteRequest(route: "detail", params: JSONObject(["id": 9]))), .pop(.count(1)),
        ]))
  }

  @Test func leavesEverythingElseToTheGeneralPath() {
    for (operation, body) in [
      ("push", #"{"route":"detail","extra":1}"#),  // unknown member: worded there
      ("push", #"{"route":"det\u0061il"}"#),  // an escape
      ("push", #"{"route":"détail"}"#),  // not ASCII
      ("push", #"{"route":"detail","route":"detail"}"#),  // a repeated name
      ("push", #"{"route":"detail","params":{"id":1.5}}"#),  // not a plain integer
      ("push", #"{"route":"detail","params":{"a":{"b":1}}}"#),  // nested
      ("push", #"{"route":"detail","target":"c0"}"#),  // not an id
      ("pop", #"{"result":{"ok":true}}"#),  // results are any JSON
      ("pop", #"{"count":1,"toRoot":true}"#),  // two amounts
      ("present", #"{"route":"settings","style":"popover"}"#),
      ("dismiss", #"{"coordinator":"c2","all":true}"#),
      ("batch", #"{"ops":[{"op":"batch","ops":[]}]}"#),
      ("batch", #"{"ops":[{"op":"replace","route":"x"}]}"#),
      ("select-tab", #"{"tab":1}"#),
      ("push", #"{"route":"detail"} x"#),
      ("push", "  "),
    ] {
      #expect(hot(operation, body) == nil, "\(operation) \(body)")
    }
  }

  @Test func whatItReadsEqualsTheGeneralPathOverRandomBodies() {
    var generator = SystemRandomNumberGenerator()
    let keys = [
      "route", "params", "target", "singleTop", "style", "count", "to", "toRoot", "coordinator",
      "all", "result", "op", "extra",
    ]
    let values = [
      #""detail""#, #""settings""#, #""c2""#, #""c0""#, #""sheet""#, #""fullScreenCover""#,
      #""pop""#, #""push""#, #""x y""#, #""é""#, #""a\"b""#, "1", "-3", "0", "-0", "2.5",
      "1e2", "123456789012345678901", "true", "false", "null", #"{"id":1}"#,
      #"{"id":1,"id":2}"#, #"{"a":{"b":1}}"#, #"{"s":"x","n":null,"b":false}"#, "[1]", "{}",
    ]
    func object(withOp: Bool) -> String {
      var members: [String] = []
      if withOp {
        let names = ["push", "pop", "present", "dismiss", "back", "replace", "batch"]
        members.append(#""op":"\#(names.randomElement(using: &generator)!)""#)
      }
      for _ in 0..<Int.random(in: 0...3, using: &generator) {
        let key = keys.randomElement(using: &generator)!
        let value = values.randomElement(using: &generator)!
        members.append(#""\#(key)" : \#(value)"#)
      }
      members.shuffle(using: &generator)
      return "{" + members.joined(separator: Bool.random(using: &generator) ? "," : " ,\n") + "}"
    }
    var readHere = 0
    for _ in 0..<20_000 {
      let operation = ["push", "pop", "present", "dismiss", "back", "batch"].randomElement(
        using: &generator)!
      let body =
        operation == "batch"
        ? #"{"ops":["#
          + (0..<Int.random(in: 0...3, using: &generator)).map { _ in
            object(withOp: true)
          }.joined(separator: ",") + "]}"
        : object(withOp: false)
      // A cut-off body must be left alone (or read the same), never crash.
      let cut = String(body.prefix(Int.random(in: 0...body.count, using: &generator)))
      if let fast = hot(operation, cut) {
        #expect(general(operation, cut) == fast, "\(operation) \(cut)")
      }
      guard let fast = hot(operation, body) else { continue }
      readHere += 1
      #expect(general(operation, body) == fast, "\(operation) \(body)")
    }
    // The generator must reach the fast path often, or this test proves little.
    #expect(readHere > 1_000)
  }

  @Test("every operation name reads back as itself; selectTab is an alias in batches")
  func operationNames() {
    for operation in Operation.allCases {
      #expect(Operation(name: operation.rawValue) == operation)
    }
    #expect(Operation(name: "selectTab") == .selectTab)
    #expect(Operation(name: "Push") == nil)
    #expect(Operation.posted.allSatisfy { $0 != .state && $0 != .teardown })
  }
}

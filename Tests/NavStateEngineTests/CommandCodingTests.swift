import NavJSON
import NavigationCore
import Testing

@testable import NavStateEngine

/// The journal's binary form of commands reads back every command exactly.
@Suite struct CommandCodingTests {
  private static let params = JSONObject([
    "id": .int(9_007_199_254_740_993), "text": .string("h\u{e9}llo \"q\""),
    "n": .number(JSONNumber(validating: "1.50")!), "flag": .bool(true),
  ])
  private static let result: JSONValue = .object(
    JSONObject(["saved": .bool(true), "list": .array([.int(1), .null, .double(2.5)])]))

  static let commands: [Command] = [
    .push(RouteRequest(route: "detail", params: params)),
    .push(RouteRequest(route: "detail"), target: CoordinatorID(3), singleTop: true),
    .pop(), .pop(.count(3), result: result), .pop(.to(CoordinatorID(2))),
    .pop(.toRoot, result: .string("done")),
    .present(RouteRequest(route: "settings"), style: .sheet),
    .present(RouteRequest(route: "detail", params: params), style: .fullScreenCover),
    .dismiss(), .dismiss(.coordinator(CoordinatorID(7)), result: .int(-1)), .dismiss(.all),
    .back(result: nil), .back(result: result),
    .replace(RouteRequest(route: "login")),
    .selectTab(.index(2)), .selectTab(.route("search"), container: CoordinatorID(4)),
    .setPath([
      PathEntry(route: "master", presentation: .root),
      PathEntry(route: "detail", params: params, presentation: .push),
      PathEntry(route: "settings", presentation: .sheet),
    ]),
    .deepLink("myapp://tabs/search?query=shoes"),
    .teardown(CoordinatorID(12)),
    .batch([.push(RouteRequest(route: "detail", params: params)), .pop(), .batch([])]),
    // Issue 25 (guards).
    .setContext([:]),
    .setContext(["a": .bool(true), "n": .int(-7), "s": .strings(["x", "é"]), "t": .string("")]),
    .setLeaveGuard(CoordinatorID(4), reason: "unsaved \"draft\""),
    .setLeaveGuard(CoordinatorID(4), reason: nil),
    .discarding(.pop()), .discarding(.batch([.back(), .discarding(.dismiss(.all))])),
    // Issue 37 (shares).
    .createShare(
      SessionShare(
        id: "b7Fq2xKc", mode: .follow, label: "Support: \"Ana\" ☃", createdAt: 1_795_000_000_123,
        expiresAt: 1_795_000_900_123, credential: (0..<32).map { UInt8($0 * 8 + 1) })),
    .createShare(
      SessionShare(
        id: "", mode: .drive, label: "", createdAt: -5, expiresAt: .max,
        credential: Array(repeating: 255, count: 32))),
    .revokeShare("b7Fq2xKc", reason: .revoked), .revokeShare("x", reason: .expired),
    .batch([.revokeShare("a", reason: .expired), .pop()]),
  ]

  @Test("every command reads back as it was written", arguments: commands)
  func roundTrip(_ command: Command) {
    var bytes: [UInt8] = []
    CommandCoding.append(command, to: &bytes)
    var reader = ByteReader(bytes)
    #expect(CommandCoding.read(&reader) == command)
    #expect(reader.isAtEnd)
  }

  @Test("bytes cut short, or a tag that is no command, read as nothing")
  func damage() {
    for command in Self.commands {
      var bytes: [UInt8] = []
      CommandCoding.append(command, to: &bytes)
      for cut in 0..<bytes.count {
        var reader = ByteReader(Array(bytes.prefix(cut)))
        #expect(CommandCoding.read(&reader) == nil, "\(command) cut at \(cut)")
      }
    }
    var unknown = ByteReader([99])
    #expect(CommandCoding.read(&unknown) == nil)
  }
}

import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

/// A `result` is the client's own value: it comes back byte for byte, numbers included, in
/// the answer, the event list, the stream and after a restart.
@Suite("Results kept exactly")
struct ResultExactnessTests {
  /// Numbers a `Double` would change (digits beyond its precision, notation, trailing zeros).
  static let result =
    #"{"big":12345678901234567890123,"fraction":123456789.123456789123,"e":4.2e1,"#
    + #""zero":-0,"padded":1.50,"list":[1E+2,-0.0]}"#

  @Test("a result's numbers are sent back as they were written, everywhere")
  func resultsKeepTheirText() throws {
    let path = NSTemporaryDirectory() + "navstate-result-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = try ServerProcess(["--data-dir", path])
    let session = try TestSession(first.client)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    let answer = try first.client.request(
      "POST", "\(session.path)/back",
      headers: [
        ("Authorization", "Bearer \(session.token)"), ("Content-Type", "application/json"),
      ],
      body: Array(#"{"result":\#(Self.result)}"#.utf8))
    #expect(answer.status == 200)
    #expect(answer.text.contains(#""result":\#(Self.result)"#), "\(answer.text)")
    let listed = try first.client.json(
      "GET", "\(session.path)/events?after=0", token: session.token)
    #expect(listed.text.contains(#""result":\#(Self.result)"#))
    let stream = try EventStreamClient(
      port: first.port, path: "\(session.path)/events/stream", token: session.token,
      lastEventID: 0)
    let resumed = stream.collect(timeout: 1).first { $0.type == "coordinator.resumed" }
    #expect(resumed?.data.contains(#""result":\#(Self.result)"#) == true)
    #expect(first.stop() == 0)

    let second = try ServerProcess(["--data-dir", path])
    defer { second.stop() }
    let again = try second.client.json(
      "GET", "\(session.path)/events?after=0", token: session.token)
    #expect(again.text.contains(#""result":\#(Self.result)"#))
  }
}

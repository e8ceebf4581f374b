import NavStateTestSupport
import NavStateTesting

// The raw HTTP client itself (`HTTPTestClient`, `RawHTTPClient`, `TestResponse`) is in
// NavStateTestSupport, shared with MicroHTTPServerTests; the v1 helpers (`json`, `TestSession`,
// `metric`) are the test kit's (NavStateTesting).

extension ServerProcess {
  var client: HTTPTestClient { HTTPTestClient(port: port) }

  /// The value of the unlabelled series `name` on `/metrics`, if it is there.
  func metric(_ name: String) throws -> Double? { try client.metric(name) }
}

import NavStateApp
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import Testing

/// `--trusted-proxy`: behind a proxy, sessions are counted per client by X-Forwarded-For.
@Suite("Client addresses behind a trusted proxy")
struct TrustedProxyTests {
  private func create(_ server: TestApp, forwardedFor: String?) throws -> Int {
    let headers = forwardedFor.map { [("X-Forwarded-For", $0)] } ?? []
    return try server.client.json("POST", "/v1/sessions", headers: headers).status
  }

  @Test(
    "from a trusted proxy, each forwarded address holds its own share of sessions",
    arguments: TestBackend.allCases)
  func trusted(backend: TestBackend) throws {
    let server = try TestApp(backend) { configuration in
      configuration.trustedProxies = ["127.0.0.1"]
      configuration.store.maxSessionsPerClient = 2
    }
    #expect(try create(server, forwardedFor: "10.0.0.1") == 201)
    #expect(try create(server, forwardedFor: "203.0.113.9, 10.0.0.1") == 201)
    #expect(try create(server, forwardedFor: "10.0.0.1") == 429)
    #expect(try create(server, forwardedFor: "10.0.0.2") == 201)
    // No header, or one that is not an address: the proxy's own address is counted.
    #expect(try create(server, forwardedFor: nil) == 201)
    #expect(try create(server, forwardedFor: "somewhere") == 201)
    #expect(try create(server, forwardedFor: nil) == 429)
  }

  @Test("from any other peer, X-Forwarded-For is ignored", arguments: TestBackend.allCases)
  func untrusted(backend: TestBackend) throws {
    let server = try TestApp(backend) { configuration in
      configuration.trustedProxies = ["10.9.9.9"]
      configuration.store.maxSessionsPerClient = 2
    }
    #expect(try create(server, forwardedFor: "10.0.0.1") == 201)
    #expect(try create(server, forwardedFor: "10.0.0.2") == 201)
    #expect(try create(server, forwardedFor: "10.0.0.3") == 429)
  }

  /// The command line's own check: a process of its own.
  @Test("a --trusted-proxy that is not an address is a usage error")
  func invalidAddress() throws {
    #expect(throws: (any Error).self) { try ServerProcess(["--trusted-proxy", "proxy.local"]) }
  }
}

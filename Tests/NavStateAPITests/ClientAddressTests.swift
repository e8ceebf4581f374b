import MicroHTTPServer
import NavStateAPI
import Testing

@Suite("Client address policy")
struct ClientAddressTests {
  private func request(from peer: String, forwardedFor: String?) -> HTTPRequest {
    var headers = HTTPHeaders()
    if let forwardedFor { headers.add("X-Forwarded-For", forwardedFor) }
    return HTTPRequest(method: "POST", path: "/v1/sessions", headers: headers, remoteAddress: peer)
  }

  @Test("a trusted peer's last forwarded address counts, written canonically")
  func trustedPeer() {
    let policy = ClientAddressPolicy(trustedProxies: ["127.0.0.1", "::1"])
    #expect(policy.address(of: request(from: "127.0.0.1", forwardedFor: "10.0.0.1")) == "10.0.0.1")
    #expect(
      policy.address(of: request(from: "127.0.0.1", forwardedFor: "1.2.3.4 , 10.0.0.7 "))
        == "10.0.0.7")
    #expect(
      policy.address(of: request(from: "::1", forwardedFor: "2001:DB8:0:0::1")) == "2001:db8::1")
  }

  @Test("anything else counts the peer itself")
  func peer() {
    let policy = ClientAddressPolicy(trustedProxies: ["127.0.0.1"])
    #expect(policy.address(of: request(from: "10.1.1.1", forwardedFor: "10.0.0.1")) == "10.1.1.1")
    #expect(policy.address(of: request(from: "127.0.0.1", forwardedFor: nil)) == "127.0.0.1")
    #expect(policy.address(of: request(from: "127.0.0.1", forwardedFor: "a, b")) == "127.0.0.1")
    #expect(
      policy.address(of: request(from: "127.0.0.1", forwardedFor: "10.0.0.1,")) == "127.0.0.1")
    #expect(
      ClientAddressPolicy().address(of: request(from: "127.0.0.1", forwardedFor: "10.0.0.1"))
        == "127.0.0.1")
  }

  @Test("address literals and their canonical text")
  func canonical() {
    #expect(canonicalIPAddress("192.168.0.1") == "192.168.0.1")
    #expect(canonicalIPAddress("0:0:0:0:0:0:0:1") == "::1")
    #expect(canonicalIPAddress("::ffff:10.0.0.1") == "::ffff:10.0.0.1")
    #expect(canonicalIPAddress("256.1.1.1") == nil)
    #expect(canonicalIPAddress("localhost") == nil)
    #expect(canonicalIPAddress("") == nil)
    #expect(canonicalIPAddress(String(repeating: "1", count: 100)) == nil)
  }
}

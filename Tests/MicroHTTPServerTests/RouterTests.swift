import XCTest

@testable import MicroHTTPServer

final class RouterTests: XCTestCase {
  private func makeRouter() -> Router {
    var router = Router()
    router.add("GET", "/v1/sessions/{sid}") { _, p in Self.text("param \(p["sid"] ?? "")") }
    router.add("GET", "/v1/sessions/current") { _, _ in Self.text("literal") }
    router.add("DELETE", "/v1/sessions/{sid}") { _, p in Self.text("deleted \(p["sid"] ?? "")") }
    router.add("GET", "/v1/sessions/{sid}/coordinators/{cid}") { _, p in
      Self.text("\(p["sid"] ?? "")/\(p["cid"] ?? "")")
    }
    router.add("POST", "/v1/sessions/current/close") { _, _ in Self.text("close current") }
    router.add("GET", "/") { _, _ in Self.text("root") }
    return router
  }

  private static func text(_ value: String) -> HTTPResponse {
    HTTPResponse(status: 200, body: Array(value.utf8))
  }

  private func call(_ router: Router, _ method: String, _ path: String) -> (Int, String) {
    let response = router.handle(HTTPRequest(method: method, path: path))
    guard case .bytes(let body) = response.body else { return (response.status, "<stream>") }
    return (response.status, String(decoding: body, as: UTF8.self))
  }

  func testLiteralSegmentsWinOverParameters() {
    let router = makeRouter()
    XCTAssertEqual(call(router, "GET", "/v1/sessions/current").1, "literal")
    XCTAssertEqual(call(router, "GET", "/v1/sessions/abc").1, "param abc")
  }

  func testFallsBackToParameterWhenLiteralBranchDoesNotMatch() {
    let router = makeRouter()
    // "current" has a literal child, but only for /close: the {sid} route must still be found.
    XCTAssertEqual(call(router, "GET", "/v1/sessions/current/coordinators/c1").1, "current/c1")
    // DELETE exists only under {sid}: the literal "current" node must not answer 405.
    XCTAssertEqual(call(router, "DELETE", "/v1/sessions/current").1, "deleted current")
  }

  func testParametersArePercentDecoded() {
    let router = makeRouter()
    XCTAssertEqual(call(router, "GET", "/v1/sessions/a%2Fb%20c/coordinators/x+y").1, "a/b c/x+y")
  }

  /// Values stay in the path until read: by name, as pairs in the route's order, and as bytes
  /// (in place when plain, decoded when escaped); a name the route lacks reads as nil.
  func testParametersReadByNameAsPairsAndAsBytes() {
    var router = Router()
    router.add("GET", "/a/{first}/b/{second}") { _, p in
      var bytes: [String] = []
      for name in ["first", "second", "third"] {
        p.withValue(name) { value in
          bytes.append(value.map { String(decoding: $0, as: UTF8.self) } ?? "nil")
        }
      }
      let pairs = p.pairs.map { "\($0.0)=\($0.1)" }.joined(separator: ",")
      return Self.text("\(p["second"] ?? "nil") \(p["third"] ?? "nil") \(pairs) \(bytes)")
    }
    XCTAssertEqual(
      call(router, "GET", "/a/x%41y/b/plain").1,
      #"plain nil first=xAy,second=plain ["xAy", "plain", "nil"]"#)
    XCTAssertEqual(
      call(router, "GET", "a/one/b/two%2F").1,
      #"two/ nil first=one,second=two/ ["one", "two/", "nil"]"#)
    let given = PathParameters([("sid", "s 1")])
    var read = ""
    given.withValue("sid") { read = $0.map { String(decoding: $0, as: UTF8.self) } ?? "nil" }
    XCTAssertEqual(read, "s 1")
    XCTAssertEqual(given["sid"], "s 1")
    XCTAssertNil(given["cid"])
  }

  func testUnknownPathIsNotFound() {
    let router = makeRouter()
    let response = router.handle(HTTPRequest(method: "GET", path: "/v1/nothing"))
    XCTAssertEqual(response.status, 404)
    XCTAssertTrue(bodyText(response).contains(#""code":"not_found""#))
    XCTAssertEqual(call(router, "GET", "/v1/sessions/").0, 404)  // empty segment is no {sid}
    XCTAssertEqual(call(router, "GET", "/v1").0, 404)  // a prefix is not a route
    XCTAssertEqual(call(router, "GET", "/").1, "root")
  }

  func testWrongMethodIsMethodNotAllowedWithAllow() {
    let router = makeRouter()
    let response = router.handle(HTTPRequest(method: "PUT", path: "/v1/sessions/s1"))
    XCTAssertEqual(response.status, 405)
    XCTAssertEqual(response.headers["Allow"], "DELETE, GET, HEAD")
    XCTAssertTrue(bodyText(response).contains(#""code":"method_not_allowed""#))
  }

  func testHeadUsesGetHandler() {
    let router = makeRouter()
    XCTAssertEqual(call(router, "HEAD", "/v1/sessions/current").1, "literal")
  }

  private func bodyText(_ response: HTTPResponse) -> String {
    guard case .bytes(let body) = response.body else { return "" }
    return String(decoding: body, as: UTF8.self)
  }
}

import NavJSON
import Testing

@testable import NavigationCore

@Suite("deep links")
struct DeepLinkGrammarTests {
  let parser = DeepLinkParser(graph: demoGraph)

  func read(_ url: String) throws -> [String] {
    try parser.entries(for: url).map { entry in
      let params = entry.params.members.map { "\($0.key)=\($0.value.encodedString)" }
      return ([entry.route, entry.presentation.rawValue] + params).joined(separator: " ")
    }
  }

  func refusal(_ url: String) -> NavigationError.Code? {
    do {
      _ = try parser.entries(for: url)
      return nil
    } catch {
      return error.code
    }
  }

  @Test("a path: the first route is the root, later ones use their own presentation")
  func path() throws {
    #expect(
      try read("/master/detail/4/settings") == [
        "master root", "detail push id=4", "settings sheet",
      ])
  }

  @Test("a custom scheme reads its host as the first segment")
  func customScheme() throws {
    #expect(try read("myapp://master/detail/4") == ["master root", "detail push id=4"])
  }

  @Test("an http(s) URL drops its host")
  func httpURL() throws {
    #expect(
      try read("https://example.com/login/signup") == ["login root", "signup fullScreenCover"])
    #expect(try read("http://example.com:8080/master#fragment") == ["master root"])
  }

  @Test("query items fill params of the last route that declares them; unknown ones are ignored")
  func query() throws {
    #expect(
      try read("/tabs/search?query=red+shoes&unknown=1") == [
        "tabs root", "search tab query=\"red shoes\"",
      ])
    #expect(
      try read("/master/detail/1/detail/2?id=3") == [
        "master root", "detail push id=1", "detail push id=3",
      ])
  }

  @Test("params are converted to their type; a segment that does not convert does not match")
  func conversion() throws {
    #expect(try read("/master/detail/-12") == ["master root", "detail push id=-12"])
    #expect(refusal("/master/detail/twelve") == .noRouteForURL)
    #expect(refusal("/tabs/search?query") == nil)
  }

  @Test("percent-escapes are decoded; broken ones are refused")
  func percent() throws {
    #expect(
      try read("/scene1/scene2/hello%20world") == [
        "scene1 root", "scene2 push text=\"hello world\"",
      ])
    #expect(refusal("/scene1/scene2/bad%zz") == .invalidURL)
  }

  @Test("an unmatched segment, an empty path or a relative one is refused")
  func refusals() {
    #expect(refusal("/master/nowhere") == .noRouteForURL)
    #expect(refusal("/") == .noRouteForURL)
    #expect(refusal("master") == .invalidURL)
    #expect(refusal("1x://master") == .invalidURL)
  }

  @Test("applying a deep link reconciles like PUT state, keeping the common prefix")
  func apply() throws {
    var session = try Fixture()
    try session.apply(.push(detail(4)))
    let events = try session.apply(.deepLink("myapp://master/detail/4/settings"))
    #expect(describe(events) == ["started c3 settings sheet under c2"])
    var login = try Fixture()
    login.refuse(.deepLink("/detail/4"), .notARootRoute)
    login.refuse(.deepLink("/master/detail/4/login"), .routeNotAllowed)
    login.refuse(.deepLink("/master/detail/4/nowhere"), .noRouteForURL)
  }
}

import NavJSON
import Testing

@testable import NavigationCore

/// The deep-link grammar of docs/behaviour.md section 5, read with the demo graph's path patterns.
@Suite("deep links")
struct DeepLinkTests {
  let parser = DeepLinkParser(graph: demoGraph)

  /// Each entry as `route presentation key=json...`.
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
    #expect(
      try read("/login/signup/dashboard") == [
        "login root", "signup fullScreenCover", "dashboard push",
      ])
    #expect(try read("/master/") == ["master root"])
  }

  @Test("a route listed in the previous route's tabs is a tab entry")
  func tabs() throws {
    #expect(
      try read("/tabs/profile/settings") == ["tabs root", "profile tab", "settings sheet"])
    #expect(
      try read("/tabs/search/detail/2") == ["tabs root", "search tab", "detail push id=2"])
  }

  @Test("a custom scheme is read as a path: its host is the first segment")
  func customScheme() throws {
    #expect(try read("myapp://master/detail/4") == ["master root", "detail push id=4"])
    #expect(try read("MyApp://master?x=1") == ["master root"])
    // myapp://detail/4 reads as /detail/4: detail becomes the root entry.
    #expect(try read("myapp://detail/4") == ["detail root id=4"])
  }

  @Test("an http(s) URL drops its host (and port)")
  func httpURL() throws {
    #expect(
      try read("https://example.com/login/signup") == ["login root", "signup fullScreenCover"])
    #expect(try read("http://example.com:8080/master#fragment") == ["master root"])
    #expect(try read("HTTPS://Example.com/master/detail/1") == ["master root", "detail push id=1"])
    // The host is not a route even when it has a route's name.
    #expect(try read("https://master/login") == ["login root"])
    #expect(refusal("https://example.com") == .noRouteForURL)
    #expect(refusal("https://example.com?id=1") == .noRouteForURL)
  }

  @Test("query items set params of the route they follow (the last); others are ignored")
  func query() throws {
    #expect(
      try read("/master/detail/1/detail/2?id=3") == [
        "master root", "detail push id=1", "detail push id=3",
      ])
    #expect(
      try read("/master/settings/search?query=red+shoes&unknown=1") == [
        "master root", "settings sheet", "search push query=\"red shoes\"",
      ])
    #expect(
      try read("/master/settings/search?query=a%26b%3Dc") == [
        "master root", "settings sheet", "search push query=\"a&b=c\"",
      ])
    #expect(
      try read("/master/settings/search?query") == [
        "master root", "settings sheet", "search push query=\"\"",
      ])
    #expect(try read("/master?&&") == ["master root"])
    #expect(refusal("/master/detail/1?id=one") == .invalidParams)
    #expect(refusal("/master/settings/search?query=%zz") == .invalidURL)
  }

  @Test("path params are converted to their type; a segment that does not convert does not match")
  func conversion() throws {
    #expect(try read("/master/detail/-12") == ["master root", "detail push id=-12"])
    #expect(refusal("/master/detail/twelve") == .noRouteForURL)
    #expect(refusal("/master/detail/1.5") == .noRouteForURL)
    #expect(refusal("/master/detail/") == .noRouteForURL)
    #expect(refusal("/master/detail/99999999999999999999") == .noRouteForURL)
  }

  @Test("an unmatched segment, an empty path or a relative one is refused")
  func refusals() {
    #expect(refusal("/master/nowhere") == .noRouteForURL)
    #expect(refusal("/nowhere") == .noRouteForURL)
    #expect(refusal("/") == .noRouteForURL)
    #expect(refusal("") == .invalidURL)
    #expect(refusal("master") == .invalidURL)
    #expect(refusal("1x://master") == .invalidURL)
    #expect(refusal("my app://master") == .invalidURL)
  }

  @Test("percent-escapes are decoded per segment; broken ones are refused")
  func percent() throws {
    #expect(
      try read("/scene1/scene2/hello%20world") == [
        "scene1 root", "scene2 push text=\"hello world\"",
      ])
    #expect(try read("/scene1/scene2/a%2Fb") == ["scene1 root", "scene2 push text=\"a/b\""])
    #expect(try read("/scene1/scene2/a+b") == ["scene1 root", "scene2 push text=\"a+b\""])
    #expect(
      try read("/scene1/scene2/a%3Fb%23c%3A%2F%2F") == [
        "scene1 root", "scene2 push text=\"a?b#c://\"",
      ])
    #expect(
      try read("/scene1/scene3/%C3%A9t%C3%A9") == ["scene1 root", "scene3 sheet text=\"été\""])
    #expect(try read("/mas%74er") == ["master root"])
    #expect(refusal("/scene1/scene2/bad%zz") == .invalidURL)
    #expect(refusal("/scene1/scene2/bad%2") == .invalidURL)
    #expect(refusal("/scene1/scene2/%FF") == .invalidURL)
  }

  @Test("a query item may hold a URL: '://' after the path does not make a scheme")
  func urlInQuery() throws {
    #expect(
      try read("/master/detail/4?from=https://example.com/x") == [
        "master root", "detail push id=4",
      ])
    #expect(
      try read("myapp://master/settings/search?query=http://a.b") == [
        "master root", "settings sheet", "search push query=\"http://a.b\"",
      ])
  }

  @Test("the first route in graph order whose pattern matches is taken")
  func firstMatchWins() throws {
    let graph = try loadGraph(
      #"""
      {"name":"shop","root":"home","routes":[
        {"name":"home"},
        {"name":"newItem","path":"/item/new"},
        {"name":"item","params":{"id":{"type":"string","required":true}}},
        {"name":"pair","path":"/pair/{a}/{b}","params":{"a":{"type":"int"},"b":{"type":"bool"}}}]}
      """#)
    let shop = DeepLinkParser(graph: graph)
    #expect(try shop.entries(for: "/home/item/new").map(\.route) == ["home", "newItem"])
    #expect(try shop.entries(for: "/home/item/42").map(\.route) == ["home", "item"])
    let pair = try shop.entries(for: "/home/pair/3/true").last
    #expect(pair?.params == ["a": 3, "b": true])
    #expect(throws: NavigationError.self) { try shop.entries(for: "/home/pair/3/yes") }
  }

  @Test("applying a deep link reconciles like PUT state, keeping the common prefix")
  func apply() throws {
    var session = try Session()
    try session.apply(.push(detail(4)))  // c2
    #expect(
      try session.events(.deepLink("myapp://master/detail/4/settings")) == [
        "started c3 settings sheet under c2"
      ])
    #expect(
      try session.events(.deepLink("https://example.com/master/detail/5")) == [
        "stopped c3 settings reset", "stopped c2 detail reset", "started c4 detail push under c1",
      ])
    #expect(try session.apply(.deepLink("/master/detail/5")).isEmpty)
    #expect(
      try session.events(.deepLink("/tabs/profile")) == [
        "stopped c4 detail reset", "stopped c1 master reset", "started c5 tabs root under -",
        "started c6 home tab under c5", "started c7 search tab under c5",
        "started c8 profile tab under c5", "tab c5 2 profile",
      ])
    #expect(session.routes == ["tabs", "profile"])
  }

  @Test("a tab route's query sets that tab's params: the tab starts afresh with them, in place")
  func tabQuery() throws {
    #expect(try read("/tabs/search?query=x") == ["tabs root", "search tab query=\"x\""])
    var session = try Session(root: "tabs")  // c1 tabs; c2 home, c3 search, c4 profile
    #expect(
      try session.events(.deepLink("/tabs/search?query=x")) == [
        "stopped c3 search reset", "started c5 search tab under c1", "tab c1 1 search",
      ])
    #expect(session.routes == ["tabs", "search"])
    #expect(session.state[CoordinatorID(5)]?.params == ["query": .string("x")])
    // The tabs keep their order in the container.
    #expect(session.state[CoordinatorID(1)]?.children.map(\.number) == [2, 5, 4])
    // The same link again changes nothing; without the query the tab gets its default back.
    #expect(try session.apply(.deepLink("/tabs/search?query=x")).isEmpty)
    #expect(
      try session.events(.deepLink("/tabs/search")) == [
        "stopped c5 search reset", "started c6 search tab under c1",
      ])
    // A container started by the link starts its tab with the link's params at once.
    var fresh = try Session()
    #expect(
      try fresh.events(.deepLink("/tabs/search?query=y")) == [
        "stopped c1 master reset", "started c2 tabs root under -", "started c3 home tab under c2",
        "started c4 search tab under c2", "started c5 profile tab under c2", "tab c2 1 search",
      ])
    #expect(fresh.state[CoordinatorID(4)]?.params == ["query": .string("y")])
  }

  @Test("a deep link that cannot be applied changes nothing")
  func applyRefusals() throws {
    var session = try Session()
    session.refuse(.deepLink("myapp://detail/4"), .notARootRoute)
    session.refuse(.deepLink("/master/detail/4/login"), .routeNotAllowed)
    session.refuse(.deepLink("/master/detail/4/nowhere"), .noRouteForURL)
    session.refuse(.deepLink("/master/detail/x"), .noRouteForURL)
    session.refuse(.deepLink("/master/bad%"), .invalidURL)
    session.refuse(.deepLink("/scene1/scene2/a/scene3/b"), .routeNotAllowed)
    let refusal = session.refuse(
      .batch([.push(detail(1)), .deepLink("/master/nowhere")]), .noRouteForURL, opIndex: 1)
    #expect(refusal?.kind == .unprocessable)
  }
}

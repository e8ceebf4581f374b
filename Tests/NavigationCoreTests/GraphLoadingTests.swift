import NavJSON
import Testing

@testable import NavigationCore

@Suite("route graphs")
struct GraphLoadingTests {
  func load(_ json: String) throws(GraphError) -> RouteGraph {
    try RouteGraph.decode(Array(json.utf8), source: "shop.json")
  }

  func error(_ json: String) -> GraphError? {
    do {
      _ = try load(json)
      return nil
    } catch {
      return error
    }
  }

  func graph(_ routes: String, root: String = "home") -> String {
    #"{"name":"shop","root":"\#(root)","routes":[\#(routes)]}"#
  }

  @Test("the demo graph has the routes of SPEC section 7")
  func demo() throws {
    let names = demoGraph.routes.map(\.name)
    #expect(
      names == [
        "master", "detail", "settings", "login", "dashboard", "forgotPassword", "signup", "tabs",
        "home", "search", "profile", "scene1", "scene2", "scene3",
      ])
    #expect(demoGraph.rootRoute == "master")
    #expect(demoGraph.route(named: "detail")?.path == "/detail/{id}")
    #expect(
      demoGraph.route(named: "detail")?.paramSpecs["id"] == ParamSpec(type: .int, required: true))
    #expect(demoGraph.route(named: "settings")?.presentation == .sheet)
    #expect(demoGraph.route(named: "signup")?.presentation == .fullScreenCover)
    #expect(demoGraph.route(named: "tabs")?.tabs == ["home", "search", "profile"])
    #expect(demoGraph.route(named: "scene1")?.next == ["scene2", "scene3"])
    #expect(demoGraph.route(named: "scene2")?.presentations == [.push])
    #expect(demoGraph.route(named: "scene3")?.presentations == [.sheet])
    for route in demoGraph.routes {
      let required = route.params.filter { $0.spec.required }.map { "/{\($0.name)}" }.joined()
      #expect(route.path == "/\(route.name)\(required)")
    }
  }

  @Test("defaults: path from the name and required params, all presentations, any next")
  func defaults() throws {
    let loaded = try load(
      graph(#"{"name":"home"},{"name":"item","params":{"id":{"type":"int","required":true}}}"#))
    let item = try #require(loaded.route(named: "item"))
    #expect(item.path == "/item/{id}")
    #expect(item.presentations == [.push, .sheet, .fullScreenCover])
    #expect(item.presentation == .push)
    #expect(item.next == nil)
    #expect(loaded.mayBeRoot(try #require(loaded.route(named: "home"))))
    #expect(!loaded.mayBeRoot(item))
  }

  @Test(
    "each error names the file, the route and the problem",
    arguments: [
      (#"{"name":"home","next":["cart"]}"#, "home", "unknown route 'cart'"),
      (#"{"name":"home","tabs":["cart"]}"#, "home", "unknown route 'cart'"),
      (#"{"name":"home"},{"name":"home"}"#, "home", "declared more than once"),
      (#"{"name":"home","path":"/a"},{"name":"b","path":"/a"}"#, "b", "duplicate path"),
      (
        #"{"name":"home","path":"/a/{x}","params":{"x":{"type":"int"}}},{"name":"b","path":"/a/{y}","params":{"y":{"type":"string"}}}"#,
        "b", "ambiguous path"
      ),
      (#"{"name":"home","params":{"x":{"type":"date"}}}"#, "home", "type"),
      (
        #"{"name":"home","params":{"x":{"type":"int","default":"one"}}}"#, "home",
        "default is not of type int"
      ),
      (#"{"name":"home","path":"/home/{id}"}"#, "home", "{id}, which is not a declared param"),
      (#"{"name":"Home"}"#, "Home", "must match"),
      (
        #"{"name":"home","tabs":["a"]},{"name":"a","params":{"q":{"type":"string","required":true}}}"#,
        "home", "required param 'q' without a default"
      ),
      (#"{"name":"home","tabs":["a"]},{"name":"a","tabs":["home"]}"#, "home", "contain each other"),
      (#"{"name":"home","colour":"red"}"#, "home", "unknown field 'colour'"),
      (#"{"name":"home","presentation":"tab"}"#, "home", "'presentation' must be"),
      (
        #"{"name":"home","presentation":"sheet","presentations":["push"]}"#, "home",
        "not among its 'presentations'"
      ),
      (#"{"name":"home","path":"home"}"#, "home", "must start with '/'"),
    ])
  func routeErrors(routes: String, route: String, problem: String) throws {
    let found = try #require(error(graph(routes)))
    #expect(found.source == "shop.json")
    #expect(found.route == route)
    #expect(found.problem.contains(problem), "\(found)")
    #expect(found.description.hasPrefix("shop.json: route '\(route)': "))
  }

  @Test("document-level errors name the file")
  func documentErrors() {
    #expect(error("[]")?.problem == "the document must be an object")
    #expect(error("{")?.problem.hasPrefix("not valid JSON") == true)
    #expect(
      error(graph(#"{"name":"home"}"#, root: "cart"))?.problem
        == "'root' names unknown route 'cart'")
    #expect(
      error(#"{"name":"shop","root":"home","routes":[]}"#)?.problem.contains("non-empty") == true)
    #expect(
      error(#"{"name":"","root":"home","routes":[{"name":"home"}]}"#)?.problem.contains("'name'")
        == true)
  }

  @Test("a literal pattern listed first wins over a parameter one")
  func literalFirst() throws {
    let loaded = try load(
      graph(
        #"{"name":"home"},{"name":"newItem","path":"/item/new"},{"name":"item","params":{"id":{"type":"string","required":true}}}"#
      ))
    let parser = DeepLinkParser(graph: loaded)
    #expect(try parser.entries(for: "/home/item/new").map(\.route) == ["home", "newItem"])
    #expect(try parser.entries(for: "/home/item/42").map(\.route) == ["home", "item"])
  }
}

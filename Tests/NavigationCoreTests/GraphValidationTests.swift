import NavJSON
import Testing

@testable import NavigationCore

/// Loading route graphs: every error names the file, the route and the problem; and the
/// built-in demo graph is the one docs/graphs.md describes.
@Suite("route graphs")
struct GraphValidationTests {
  func error(_ json: String) -> GraphError? {
    do {
      _ = try loadGraph(json, source: "shop.json")
      return nil
    } catch {
      return error
    }
  }

  func graph(_ routes: String, root: String = "home") -> String {
    #"{"name":"shop","root":"\#(root)","routes":[\#(routes)]}"#
  }

  @Test(
    "each route error names the file, the route and the problem",
    arguments: [
      // unknown routes in next and tabs
      (#"{"name":"home","next":["cart"]}"#, "home", "'next' names unknown route 'cart'"),
      (#"{"name":"home","tabs":["cart"]}"#, "home", "'tabs' names unknown route 'cart'"),
      (#"{"name":"home"},{"name":"home"}"#, "home", "declared more than once"),
      // duplicate and ambiguous paths
      (#"{"name":"home","path":"/a"},{"name":"b","path":"/a"}"#, "b", "duplicate path '/a'"),
      (
        #"{"name":"home","path":"/a/{x}","params":{"x":{"type":"int"}}},{"name":"b","path":"/a/{y}","params":{"y":{"type":"string"}}}"#,
        "b", "ambiguous path '/a/{y}': route 'home' already matches it"
      ),
      // param declarations
      (#"{"name":"home","params":{"x":{"type":"date"}}}"#, "home", "param 'x' needs a 'type'"),
      (#"{"name":"home","params":{"x":{}}}"#, "home", "param 'x' needs a 'type'"),
      (#"{"name":"home","params":{"x":"int"}}"#, "home", "param 'x' must be an object"),
      (
        #"{"name":"home","params":{"x":{"type":"int","default":"one"}}}"#, "home",
        "param 'x': default is not of type int"
      ),
      (
        #"{"name":"home","params":{"x":{"type":"int","default":1.5}}}"#, "home",
        "default is not of type int"
      ),
      (
        #"{"name":"home","params":{"x":{"type":"bool","default":0}}}"#, "home",
        "default is not of type bool"
      ),
      (
        #"{"name":"home","params":{"x":{"type":"int","required":"yes"}}}"#, "home",
        "'required' must be true or false"
      ),
      (
        #"{"name":"home","params":{"x":{"type":"int","min":0}}}"#, "home",
        "param 'x' has unknown field 'min'"
      ),
      (#"{"name":"home","params":{"1x":{"type":"int"}}}"#, "home", "param '1x' must match"),
      // paths
      (#"{"name":"home","path":"/home/{id}"}"#, "home", "{id}, which is not a declared param"),
      (
        #"{"name":"home","path":"/a/{x}/{x}","params":{"x":{"type":"int"}}}"#, "home",
        "uses {x} twice"
      ),
      (#"{"name":"home","path":"home"}"#, "home", "must start with '/'"),
      (#"{"name":"home","path":"/a//b"}"#, "home", "empty segment"),
      (#"{"name":"home","path":"/a/{}"}"#, "home", "is not a {param}"),
      (#"{"name":"home","path":"/a/b}"}"#, "home", "reserved character"),
      (#"{"name":"home","path":7}"#, "home", "'path' must be a string"),
      // names
      (#"{"name":"Home"}"#, "Home", "the name must match [a-z][A-Za-z0-9_]*"),
      (#"{"name":"home-page"}"#, "home-page", "the name must match"),
      (#"{"name":"_home"}"#, "_home", "the name must match"),
      // tabs
      (
        #"{"name":"home","tabs":["a"]},{"name":"a","params":{"q":{"type":"string","required":true}}}"#,
        "home", "tab 'a' has required param 'q' without a default"
      ),
      (
        #"{"name":"home","tabs":["a"]},{"name":"a","tabs":["home"]}"#, "home",
        "tab containers contain each other: home -> a -> home"
      ),
      (#"{"name":"home","tabs":["home"]}"#, "home", "contain each other: home -> home"),
      (#"{"name":"home","tabs":["a","a"]},{"name":"a"}"#, "home", "'tabs' lists a route twice"),
      (#"{"name":"home","tabs":{}}"#, "home", "'tabs' must be an array"),
      // fields
      (#"{"name":"home","colour":"red"}"#, "home", "unknown field 'colour'"),
      (#"{"name":"home","presentation":"tab"}"#, "home", "'presentation' must be"),
      (#"{"name":"home","presentations":[]}"#, "home", "'presentations' must be a non-empty"),
      (#"{"name":"home","presentations":["root"]}"#, "home", "'presentations' may hold only"),
      (
        #"{"name":"home","presentation":"sheet","presentations":["push"]}"#, "home",
        "not among its 'presentations'"
      ),
      (#"{"name":"home","next":"cart"}"#, "home", "'next' must be an array"),
      (#"{"name":"home","root":"yes"}"#, "home", "'root' must be true or false"),
    ])
  func routeErrors(routes: String, route: String, problem: String) throws {
    let found = try #require(error(graph(routes)))
    #expect(found.source == "shop.json")
    #expect(found.route == route)
    #expect(found.problem.contains(problem), "\(found)")
    #expect(found.description == "shop.json: route '\(route)': \(found.problem)")
  }

  @Test("document errors name the file")
  func documentErrors() throws {
    #expect(error("[]")?.problem == "the document must be an object")
    #expect(error("{")?.problem.hasPrefix("not valid JSON") == true)
    let unknownRoot = try #require(error(graph(#"{"name":"home"}"#, root: "cart")))
    #expect(unknownRoot.problem == "'root' names unknown route 'cart'")
    #expect(unknownRoot.source == "shop.json")
    #expect(unknownRoot.route == nil)
    #expect(unknownRoot.description == "shop.json: 'root' names unknown route 'cart'")
    #expect(
      error(#"{"name":"shop","routes":[{"name":"home"}]}"#)?.problem.contains("'root'") == true)
    #expect(
      error(#"{"name":"shop","root":"home","routes":[]}"#)?.problem.contains("non-empty") == true)
    #expect(
      error(#"{"name":"","root":"home","routes":[{"name":"home"}]}"#)?.problem.contains("'name'")
        == true)
    #expect(
      error(#"{"name":"shop","root":"home","routes":[{"name":"home"}],"revision":2}"#)?.problem
        == "unknown field 'revision'")
    #expect(error(#"{"name":"shop","root":"home","routes":[{"path":"/x"}]}"#) != nil)
    #expect(error(#"{"name":"shop","root":"home","routes":["home"]}"#) != nil)
  }

  @Test("defaults: path from the name and required params, all presentations, any next")
  func defaults() throws {
    let loaded = try loadGraph(
      graph(
        #"{"name":"home"},{"name":"item","params":{"id":{"type":"int","required":true},"q":{"type":"string"}}},{"name":"pane","presentations":["sheet","fullScreenCover"]}"#
      ))
    let item = try #require(loaded.route(named: "item"))
    #expect(item.path == "/item/{id}")
    #expect(item.segments == [.literal("item"), .param("id")])
    #expect(item.presentations == [.push, .sheet, .fullScreenCover])
    #expect(item.presentation == .push)
    #expect(item.next == nil)
    #expect(item.allowsNext("anything"))
    #expect(item.params.map(\.name) == ["id", "q"])
    #expect(loaded.mayBeRoot(try #require(loaded.route(named: "home"))))
    #expect(!loaded.mayBeRoot(item))
    // Without push among its presentations, a deep link shows the first allowed one.
    #expect(loaded.route(named: "pane")?.presentation == .sheet)
    #expect(loaded.route(named: "nowhere") == nil)
  }

  @Test("the demo graph is the one of the README")
  func demo() throws {
    let graphs = try BuiltInGraphs.load()
    #expect(graphs.map(\.name) == ["demo", "zumry"])
    #expect(graphs.first { $0.name == "zumry" }?.hasGuards == true)
    #expect(graphs.first { $0.name == "demo" }?.hasGuards == false)
    let demo = demoGraph
    #expect(demo.rootRoute == "master")
    #expect(
      demo.routes.map(\.name) == [
        "master", "detail", "settings", "login", "dashboard", "forgotPassword", "signup", "tabs",
        "home", "search", "profile", "scene1", "scene2", "scene3",
      ])
    // Each path is '/' and the name, then '/{param}' for each required param.
    for route in demo.routes {
      let required = route.params.filter { $0.spec.required }.map { "/{\($0.name)}" }.joined()
      #expect(route.path == "/\(route.name)\(required)")
    }
    // master pushes detail (int id) and presents settings as a sheet.
    #expect(demo.route(named: "master")?.next == ["detail", "settings"])
    #expect(demo.route(named: "detail")?.path == "/detail/{id}")
    #expect(demo.route(named: "detail")?.paramSpecs["id"] == ParamSpec(type: .int, required: true))
    #expect(demo.route(named: "settings")?.presentations == [.sheet])
    // login, dashboard, forgotPassword (sheet), signup (fullScreenCover).
    #expect(demo.route(named: "login")?.mayBeRoot == true)
    #expect(demo.route(named: "login")?.next == ["dashboard", "forgotPassword", "signup"])
    #expect(demo.route(named: "forgotPassword")?.presentations == [.sheet])
    #expect(demo.route(named: "signup")?.presentations == [.fullScreenCover])
    #expect(demo.route(named: "signup")?.presentation == .fullScreenCover)
    // A tabs container with home, search and profile.
    #expect(demo.route(named: "tabs")?.tabs == ["home", "search", "profile"])
    #expect(demo.route(named: "tabs")?.mayBeRoot == true)
    #expect(demo.route(named: "tabs")?.coordinatorCost == 4)
    // scene1 may show only scene2 (push, string text) and scene3 (sheet, string text).
    #expect(demo.route(named: "scene1")?.mayBeRoot == true)
    #expect(demo.route(named: "scene1")?.next == ["scene2", "scene3"])
    #expect(demo.route(named: "scene2")?.presentations == [.push])
    #expect(
      demo.route(named: "scene2")?.paramSpecs["text"] == ParamSpec(type: .string, required: true))
    #expect(demo.route(named: "scene3")?.presentations == [.sheet])
    #expect(demo.route(named: "scene3")?.presentation == .sheet)
    #expect(
      demo.route(named: "scene3")?.paramSpecs["text"] == ParamSpec(type: .string, required: true))
    // Roots: the graph's root and the routes marked root, nothing else.
    let roots = demo.routes.filter { demo.mayBeRoot($0) }.map(\.name)
    #expect(roots == ["master", "login", "tabs", "scene1"])
  }
}

/// Typed clients write optional members they do not set as `null`, `[]` or `{}`: a graph read
/// back from GET and sent again must mean what it meant.
@Suite struct TypedClientGraphTests {
  @Test(
    "null members mean absent ones; tabs [] and requires {} mean none; next [] still means none")
  func nullAndEmptyMembers() throws {
    let graph = try loadGraph(
      """
      {"name": "typed", "root": "home", "version": null, "migrate": null, "description": null,
       "routes": [
        {"name": "home", "root": true, "next": null, "tabs": [], "requires": {}, "redirect": null,
         "path": null, "presentation": null, "presentations": null,
         "params": {"q": {"type": "string", "required": false, "default": null}}},
        {"name": "leaf", "next": [], "tabs": null, "requires": null, "params": null}
      ]}
      """)
    let home = try #require(graph.route(named: "home"))
    #expect(home.next == nil)
    #expect(home.tabs == nil)
    #expect(graph.routeGuard(of: "home") == nil)
    #expect(home.paramSpecs["q"]?.defaultValue == nil)
    #expect(home.path == "/home")
    #expect(graph.version == 1)
    let leaf = try #require(graph.route(named: "leaf"))
    #expect(leaf.next == [])
    #expect(!leaf.allowsNext("home"))
    #expect(home.allowsNext("leaf"))
  }
}

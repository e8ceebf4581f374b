import Foundation
import NavJSON
import Testing

@testable import NavigationCore

@Suite("Session context and route requirements")
struct ContextTests {
  @Test("a context keeps its keys sorted, whatever order they were written in")
  func sortedKeys() throws {
    let context = try SessionContext(json: ["b": 1, "a": true, "c": ["x", "y"]])
    #expect(context.keys == ["a", "b", "c"])
    #expect(context.json.encodedString == #"{"a":true,"b":1,"c":["x","y"]}"#)
    #expect(context == ["c": .strings(["x", "y"]), "a": .bool(true), "b": .int(1)])
  }

  @Test("a context holds strings, integers, booleans and arrays of strings, nothing else")
  func allowedValues() throws {
    #expect(throws: NavigationError.self) { try SessionContext(json: ["k": ["a": 1]]) }
    #expect(throws: NavigationError.self) { try SessionContext(json: ["k": .null]) }
    #expect(throws: NavigationError.self) { try SessionContext(json: ["k": [1, 2]]) }
    #expect(throws: NavigationError.self) { try SessionContext(json: ["k": 1.5]) }
    #expect(throws: NavigationError.self) { try SessionContext(json: [1, 2]) }
    do {
      _ = try SessionContext(json: "text")
      Issue.record("a string is not a context")
    } catch {
      #expect(error.code == .invalidContext)
    }
    let exact = try SessionContext(json: ["big": .int(Int(Int64.max))])
    #expect(exact["big"] == .int(Int64.max))
  }

  @Test("a merge patch sets, replaces and (with null) removes keys (RFC 7396)")
  func mergePatch() throws {
    let context: SessionContext = ["a": .int(1), "b": .string("x"), "c": .bool(true)]
    let merged = try context.merging(["a": .null, "b": "y", "d": ["r"]])
    #expect(merged == ["b": .string("y"), "c": .bool(true), "d": .strings(["r"])])
    // Removing an absent key is no error; an empty patch changes nothing.
    #expect(try context.merging(["zzz": .null]) == context)
    #expect(try context.merging([:]) == context)
    // A patch that is not an object replaces the whole target, so it must be a context.
    #expect(throws: NavigationError.self) { try context.merging("x") }
    // A nested object cannot be merged into a context value.
    #expect(throws: NavigationError.self) { try context.merging(["a": ["b": 1]]) }
    // The original is a value: untouched.
    #expect(context["a"] == .int(1))
  }

  @Test("a context over 4 KiB encoded is refused, as set or as merged")
  func sizeLimit() throws {
    let big = String(repeating: "x", count: 4000)
    let fits = try SessionContext(json: ["k": .string(big)])
    #expect(fits.encodedBytes <= SessionContext.maxEncodedBytes)
    do {
      _ = try fits.merging(["l": .string(String(repeating: "y", count: 200))])
      Issue.record("a merge over the limit was accepted")
    } catch {
      #expect(error.code == .contextTooLarge)
    }
    do {
      _ = try SessionContext(json: ["k": .string(big + big)])
      Issue.record("a context over the limit was accepted")
    } catch {
      #expect(error.code == .contextTooLarge)
    }
  }

  @Test("requirements: equal values, any of an array, a shared element of an array key")
  func requirements() {
    let flag = RouteGuard.Requirement(key: "k", accepted: [.bool(true)])
    #expect(flag.isMet(by: .bool(true)))
    #expect(!flag.isMet(by: .bool(false)))
    #expect(!flag.isMet(by: .string("true")))
    #expect(!flag.isMet(by: nil))
    let anyOf = RouteGuard.Requirement(key: "k", accepted: [.string("pro"), .string("team")])
    #expect(anyOf.isMet(by: .string("team")))
    #expect(!anyOf.isMet(by: .string("free")))
    #expect(anyOf.isMet(by: .strings(["free", "pro"])))
    #expect(!anyOf.isMet(by: .strings(["free"])))
    #expect(!anyOf.isMet(by: .strings([])))
    let number = RouteGuard.Requirement(key: "k", accepted: [.int(2)])
    #expect(number.isMet(by: .int(2)) && !number.isMet(by: .int(3)))
    let routeGuard = RouteGuard(
      requires: [
        .init(key: "z", accepted: [.bool(true)]), .init(key: "a", accepted: [.int(1)]),
      ], redirect: nil)
    #expect(routeGuard.missing(in: [:]) == ["a", "z"])
    #expect(routeGuard.missing(in: ["a": .int(1)]) == ["z"])
    #expect(routeGuard.isOpen(in: ["a": .int(1), "z": .bool(true)]))
  }

  @Test("graphs read requires and redirect; graphs without them have no guards")
  func decoding() throws {
    #expect(!demoGraph.hasGuards)
    #expect(zumryGraph.hasGuards)
    #expect(zumryGraph.routeGuard(of: "dashboard")?.redirect == "login")
    #expect(
      zumryGraph.routeGuard(of: "dashboard")?.requires == [
        .init(key: "authenticated", accepted: [.bool(true)])
      ])
    #expect(zumryGraph.routeGuard(of: "login") == nil)
    #expect(!zumryGraph.isOpen("dashboard", in: [:]))
    #expect(zumryGraph.isOpen("dashboard", in: ["authenticated": .bool(true)]))
    #expect(zumryGraph.isOpen("login", in: [:]))
    let admin = gatedGraph.routeGuard(of: "admin")
    #expect(admin?.requires.first?.accepted == [.string("admin"), .string("owner")])
    #expect(admin?.redirect == nil)
    // The demo graph is the one it always was: no route has a guard.
    #expect(demoGraph.routes.allSatisfy { demoGraph.routeGuard(of: $0.name) == nil })
  }

  @Test(
    "graphs with bad guards are refused at load, with the route and the reason",
    arguments: [
      (
        #"{"name": "a", "redirect": "nowhere", "requires": {"k": true}}"#, "unknown route 'nowhere'"
      ),
      (#"{"name": "a", "redirect": "a", "requires": {"k": true}}"#, "redirects loop: a -> a"),
      (#"{"name": "a", "redirect": "b"}"#, "'redirect' without 'requires'"),
      (#"{"name": "a", "requires": []}"#, "non-empty object"),
      (#"{"name": "a", "requires": {}, "redirect": "b"}"#, "would never be used"),
      (#"{"name": "a", "requires": {"k": {"x": 1}}}"#, "'requires' key 'k'"),
      (#"{"name": "a", "requires": {"k": [[1]]}}"#, "'requires' key 'k'"),
      (#"{"name": "a", "requires": {"k": []}}"#, "accepts no value"),
      (#"{"name": "a", "requires": {"k": null}}"#, "'requires' key 'k'"),
      (#"{"name": "a", "redirect": 3, "requires": {"k": true}}"#, "'redirect' must name a route"),
    ])
  func badGuards(route: String, problem: String) {
    let json =
      #"{"name": "g", "root": "b", "routes": [{"name": "b", "root": true}, "# + route + "]}"
    do {
      _ = try loadGraph(json)
      Issue.record("loaded: \(route)")
    } catch {
      #expect(error.route == "a")
      #expect(error.problem.contains(problem), "\(error)")
    }
  }

  @Test("a redirect cycle through several routes is refused")
  func longCycle() {
    let json = """
      {"name": "g", "root": "a", "routes": [
        {"name": "a", "root": true},
        {"name": "b", "requires": {"k": 1}, "redirect": "c"},
        {"name": "c", "requires": {"k": 2}, "redirect": "d"},
        {"name": "d", "requires": {"k": 3}, "redirect": "b"}]}
      """
    do {
      _ = try loadGraph(json)
      Issue.record("a cycle loaded")
    } catch {
      #expect(error.problem.contains("redirects loop: b -> c -> d -> b"), "\(error)")
    }
    // A chain that ends is fine.
    let chain = json.replacingOccurrences(
      of: #""redirect": "b"}"#, with: #""redirect": "a"}"#)
    #expect((try? loadGraph(chain)) != nil)
  }

  @Test("tabs may not be guarded; a redirect must start without params of its own")
  func tabsAndRedirectParams() {
    let tab = """
      {"name": "g", "root": "t", "routes": [
        {"name": "t", "tabs": ["x"]}, {"name": "x", "requires": {"k": true}}]}
      """
    #expect(throws: GraphError.self) { try loadGraph(tab) }
    let params = """
      {"name": "g", "root": "a", "routes": [
        {"name": "a", "root": true},
        {"name": "b", "requires": {"k": true}, "redirect": "c"},
        {"name": "c", "params": {"id": {"type": "int", "required": true}}}]}
      """
    do {
      _ = try loadGraph(params)
      Issue.record("a redirect with a required param loaded")
    } catch {
      #expect(error.problem.contains("required param 'id'"), "\(error)")
    }
  }
}

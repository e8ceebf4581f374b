import Foundation
import NavJSON
import Testing

@testable import NavigationCore

/// Random walks on guarded graphs that mix guarded operations, context changes, pending requests,
/// leave guards, limits and migrations to random later versions of the graph: after every step the
/// session has a root (it never ends on its own), every shape rule holds (params valid in the
/// session's graph version), every live coordinator shows an open route, and `allowed` lists
/// exactly what is accepted. A failure names its seed and step.
@Suite("random guarded walks with migrations")
struct GuardedWalkPropertyTests {
  /// Later versions of the gated graph, each a small change a team might ship: a rename, a
  /// param's type, a route removed (with and without a replacement), a guard added to the root
  /// or taken away, a redirect moved, login no longer a root.
  static func gatedVersions() throws -> [RouteGraph] {
    let base = """
      {"name": "gated", "version": VERSION, "root": "home", MIGRATE "routes": [
        {"name": "home", "root": true HOMEGUARD},
        {"name": "ACCOUNT", "requires": {"signedIn": true}, "redirect": "signin"},
        {"name": "admin", "root": true, "requires": {"roles": ["admin", "owner"]}},
        {"name": "billing", "presentation": "sheet", "presentations": ["sheet", "fullScreenCover"],
         "requires": {"signedIn": true, "plan": ["pro", "team"]}, "redirect": "BILLINGREDIRECT"},
        {"name": "upgrade", "presentation": "sheet", "presentations": ["sheet"], "next": []},
        {"name": "signin", "root": SIGNINROOT},
        {"name": "welcome", "root": true},
        VAULT
        {"name": "detail", "params": {"id": {"type": "IDTYPE", "required": true}},
         "next": ["detail", "ACCOUNT", "billing", "admin", "signin", "upgrade"]}
      ]}
      """
    let vault = """
      {"name": "vault", "root": true, "tabs": ["vaultHome", "vaultKeys"],
       "requires": {"signedIn": true}, "redirect": "signin"},
      {"name": "vaultHome"}, {"name": "vaultKeys"},
      """
    struct Change {
      var account = "account"
      var migrate = ""
      var homeGuard = ""
      var billingRedirect = "upgrade"
      var signinRoot = "true"
      var vault = true
      var idType = "int"
    }
    let changes: [Change] = [
      Change(account: "profile", migrate: #""migrate": {"renamed": {"account": "profile"}},"#),
      Change(idType: "string"),
      Change(migrate: #""migrate": {"removed": {"vault": "welcome"}},"#, vault: false),
      Change(homeGuard: #", "requires": {"signedIn": true}, "redirect": "signin""#),
      Change(billingRedirect: "signin"),
      Change(signinRoot: "false"),
      Change(migrate: #""migrate": {"removed": {"vault": null}},"#, vault: false, idType: "number"),
      Change(),
    ]
    var graphs: [RouteGraph] = []
    for (index, change) in changes.enumerated() {
      let text = base.replacingOccurrences(of: "VERSION", with: "\(index + 2)")
        .replacingOccurrences(of: "MIGRATE", with: change.migrate)
        .replacingOccurrences(of: "HOMEGUARD", with: change.homeGuard)
        .replacingOccurrences(of: "ACCOUNT", with: change.account)
        .replacingOccurrences(of: "BILLINGREDIRECT", with: change.billingRedirect)
        .replacingOccurrences(of: "SIGNINROOT", with: change.signinRoot)
        .replacingOccurrences(of: "VAULT", with: change.vault ? vault : "")
        .replacingOccurrences(of: "IDTYPE", with: change.idType)
      graphs.append(try loadGraph(text, source: "gated v\(index + 2)"))
    }
    return graphs
  }

  /// The first gated version: the gated graph's routes plus `welcome`, so that every later
  /// version keeps or removes routes the walk has seen.
  static func gatedStart() throws -> RouteGraph {
    let versions = try gatedVersions()
    let last = try #require(versions.last)
    // The last change changes nothing: read it back as version 1.
    var document = try #require(
      try JSONParser.parse(Array(renderGraph(last).utf8)).objectValue)
    document["version"] = 1
    return try RouteGraph.decode(JSONValue.object(document).encoded, source: "gated v1")
  }

  @Test("a root always exists, every rule holds and allowed is exact across migrations")
  func walks() throws {
    let start = try Self.gatedStart()
    let versions = try Self.gatedVersions()
    var migrations = 0
    var restarts = 0
    var pendingSeen = 0
    for seed in UInt64(1)...300 {
      var random = SplitMix64(seed: seed &* 7919)
      let roots = start.routes.filter { start.mayBeRoot($0) }.map(\.name)
      let limit = random.chance(4) ? random.int(3...8) : 256
      guard
        var (state, _) = try? NavigationState.start(
          graph: start, root: RouteRequest(route: random.pick(roots)),
          context: random.pick(AffordanceTests.contexts),
          limits: NavigationLimits(maxCoordinators: limit))
      else { continue }
      // Later versions, in order: a session moves along them as the server loads them.
      var ahead = versions.filter { _ in random.chance(2) }
      for step in 0..<40 {
        var problems = state.invariantViolations() + guardViolations(state)
        if state.rootID == nil { problems.append("the session has no root") }
        problems += AffordanceTests.disagreements(in: state)
        problems += AffordanceTests.guardDisagreements(in: state)
        #expect(problems.isEmpty, "seed \(seed) step \(step): \(problems)")
        if !problems.isEmpty { return }
        if state.pendingRequest != nil { pendingSeen += 1 }
        if !ahead.isEmpty, random.chance(8) {
          let count = random.int(1...ahead.count)
          let path = Array(ahead.prefix(count))
          ahead.removeFirst(count)
          let context = state.context
          let target = path[path.count - 1]
          guard
            let (moved, _, summary) = try? state.migratedAndSummarized(
              through: path, isOpen: { target.isOpen($0.name, in: context) })
          else { continue }
          state = moved
          migrations += 1
          if summary.outcome == .restarted { restarts += 1 }
          continue
        }
        // Links that wait behind a redirect and then meet a closed route without one (a
        // pending request that no longer applies when its route opens), or outgrow the limit.
        let command =
          random.chance(6)
          ? .deepLink(random.pick(["/vault/vaultKeys/admin", "/vault/admin", "/vault", "/admin"]))
          : AffordanceTests.guardedCommand(state, &random)
        let before = state
        if (try? state.apply(command)) == nil,
          Snapshot(state) != Snapshot(before) || state.pendingRequest != before.pendingRequest
        {
          Issue.record("seed \(seed) step \(step): a refused \(brief(command)) changed the state")
          return
        }
      }
    }
    #expect(migrations > 200, "\(migrations) migrations")
    #expect(restarts > 0 && pendingSeen > 0, "\(restarts) restarts, \(pendingSeen) pending")
  }
}

/// A graph as a document the decoder reads back as the same graph (guards included).
func renderGraph(_ graph: RouteGraph) -> String {
  var routes: [JSONValue] = []
  for route in graph.routes {
    var object = JSONObject()
    object["name"] = .string(route.name)
    var params = JSONObject()
    for (name, spec) in route.params {
      var declaration: JSONObject = [
        "type": .string(spec.type.rawValue), "required": .bool(spec.required),
      ]
      if let value = spec.defaultValue { declaration["default"] = value.json }
      params[name] = .object(declaration)
    }
    object["params"] = .object(params)
    object["presentation"] = .string(route.presentation.rawValue)
    object["presentations"] = .array(
      Presentation.explicit.filter { route.presentations.contains($0) }.map { .string($0.rawValue) }
    )
    if let next = route.next { object["next"] = .array(next.sorted().map(JSONValue.string)) }
    if let tabs = route.tabs { object["tabs"] = .array(tabs.map(JSONValue.string)) }
    object["root"] = .bool(route.mayBeRoot)
    if let routeGuard = graph.routeGuard(of: route.name) {
      var requires = JSONObject()
      for requirement in routeGuard.requires {
        let values = requirement.accepted.map(\.json)
        requires[requirement.key] = values.count == 1 ? values[0] : .array(values)
      }
      object["requires"] = .object(requires)
      if let redirect = routeGuard.redirect { object["redirect"] = .string(redirect) }
    }
    routes.append(.object(object))
  }
  let document: JSONValue = [
    "name": .string(graph.name), "version": .int(graph.version), "root": .string(graph.rootRoute),
    "routes": .array(routes),
  ]
  return document.encodedString
}

import NavJSON
import Testing

@testable import NavigationCore

// Moving sessions to a newer version of their graph (docs/behaviour.md section 12): one test per rule. Every
// migration goes through `migrate`, which checks the shape rules and the event rules.

/// Version 1 of a small shop, and later versions made from it by replacing, adding or
/// dropping route declarations.
private let shopRoutes: [(name: String, json: String)] = [
  ("home", #"{"name":"home","next":["item","cart","promo","legacy"]}"#),
  (
    "item",
    #"{"name":"item","params":{"id":{"type":"int","required":true}},"next":["item","cart"]}"#
  ),
  ("cart", #"{"name":"cart","presentation":"sheet","presentations":["sheet"]}"#),
  ("promo", #"{"name":"promo","next":["item"]}"#),
  ("legacy", #"{"name":"legacy","params":{"old":{"type":"string","default":"x"}}}"#),
  ("main", #"{"name":"main","root":true,"tabs":["feed","account"]}"#),
  ("feed", #"{"name":"feed","next":["item"]}"#),
  ("account", #"{"name":"account"}"#),
]

private func shop(
  version: Int = 1, migrate: String? = nil, root: String = "home",
  replacing: [String: String] = [:], removing: Set<String> = [], adding: [String] = []
) throws -> RouteGraph {
  let routes =
    shopRoutes.filter { !removing.contains($0.name) }.map { replacing[$0.name] ?? $0.json }
    + adding
  let migrateField = migrate.map { #","migrate":\#($0)"# } ?? ""
  return try loadGraph(
    #"{"name":"shop","version":\#(version),"root":"\#(root)"\#(migrateField),"routes":[\#(routes.joined(separator: ","))]}"#
  )
}

private func session(_ root: String = "home", _ commands: [Command] = []) throws
  -> NavigationState
{
  var (state, _) = try NavigationState.start(graph: try shop(), root: route(root))
  for command in commands { _ = try state.apply(command) }
  return state
}

private func item(_ id: Int) -> RouteRequest { route("item", ["id": .int(id)]) }

/// Migrates `state`, checks the rules, and checks that the dry run says what happened.
private func migrate(
  _ state: NavigationState, to graphs: [RouteGraph], isOpen: (Route) -> Bool = { _ in true },
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> (NavigationState, [NavigationEvent], MigrationSummary) {
  let summary = try state.migrationSummary(through: graphs, isOpen: isOpen)
  let (after, events, done) = try state.migratedAndSummarized(through: graphs, isOpen: isOpen)
  #expect(
    done == summary, "a migration reports what its dry run said", sourceLocation: sourceLocation)
  #expect(after.invariantViolations() == [], sourceLocation: sourceLocation)
  checkEventRules(
    events, before: state, after: after, orderedByOperation: true, sourceLocation: sourceLocation)
  #expect(after.graphVersion == graphs.last?.version, sourceLocation: sourceLocation)
  #expect(
    events.last?.kind
      == .sessionMigrated(from: state.graphVersion, to: graphs.last?.version ?? 0),
    sourceLocation: sourceLocation)
  var stopped: [String: Int] = [:]
  for event in events {
    guard case .stopped(_, let route, let reason) = event.kind else { continue }
    #expect(reason == .migrated, sourceLocation: sourceLocation)
    stopped[route, default: 0] += 1
  }
  #expect(summary.stopped == stopped, sourceLocation: sourceLocation)
  let unchanged = after.coordinators == state.coordinators && events.count == 1
  #expect((summary.outcome == .unchanged) == unchanged, sourceLocation: sourceLocation)
  #expect(
    (summary.outcome == .restarted) == (after.rootID != state.rootID),
    sourceLocation: sourceLocation)
  return (after, events, summary)
}

private func routes(_ state: NavigationState) -> [String] {
  state.coordinators.values.map { "\($0.id) \($0.route)" }
}

@Suite("migrations")
struct MigrationTests {
  @Test("a graph without a version is version 1; the state shows its graph's version")
  func versions() throws {
    let state = try session()
    #expect(state.graph.version == 1)
    #expect(state.graphVersion == 1)
    #expect(try shop(version: 7).version == 7)
    #expect(try shop().migration == .none)
  }

  @Test("an identical graph with a higher version changes nothing but the versions")
  func identical() throws {
    let state = try session("home", [.push(item(1)), .present(route("cart"), style: .sheet)])
    let (after, events, summary) = try migrate(state, to: [try shop(version: 2)])
    #expect(describe(events) == ["migrated 1 -> 2"])
    #expect(events.map(\.version) == [state.version + 1])
    #expect(after.coordinators == state.coordinators)
    #expect(after.version == state.version + 1)
    #expect(after.lastIssuedID == state.lastIssuedID)
    #expect(summary == MigrationSummary(outcome: .unchanged))
  }

  @Test("a renamed route's coordinators keep their ids under the new name")
  func rename() throws {
    let state = try session("home", [.push(item(1)), .push(item(2))])
    let v2 = try shop(
      version: 2, migrate: #"{"renamed":{"item":"product"}}"#,
      replacing: [
        "home": #"{"name":"home","next":["product","cart","promo","legacy"]}"#,
        "item":
          #"{"name":"product","params":{"id":{"type":"int","required":true}},"next":["product","cart"]}"#,
        "promo": #"{"name":"promo","next":["product"]}"#,
        "feed": #"{"name":"feed","next":["product"]}"#,
      ])
    let (after, events, summary) = try migrate(state, to: [v2])
    #expect(routes(after) == ["c1 home", "c2 product", "c3 product"])
    #expect(after[c(3)]?.params == ["id": .int(2)])
    #expect(describe(events) == ["migrated 1 -> 2"])
    #expect(summary == MigrationSummary(outcome: .migrated))
  }

  @Test("a route removed with null is stopped with its subtree, children first")
  func removeNull() throws {
    let state = try session("home", [.push(route("promo")), .push(item(1))])
    let v2 = try shop(
      version: 2, migrate: #"{"removed":{"promo":null}}"#,
      replacing: ["home": #"{"name":"home","next":["item","cart","legacy"]}"#],
      removing: ["promo"])
    let (after, events, summary) = try migrate(state, to: [v2])
    #expect(routes(after) == ["c1 home"])
    #expect(
      describe(events) == [
        "stopped c3 item migrated", "stopped c2 promo migrated", "migrated 1 -> 2",
      ])
    #expect(summary == MigrationSummary(outcome: .migrated, stopped: ["item": 1, "promo": 1]))
  }

  @Test("a route dropped from the graph without a word in migrate counts as removed with null")
  func silentRemoval() throws {
    let state = try session("home", [.push(route("promo"))])
    let v2 = try shop(
      version: 2, replacing: ["home": #"{"name":"home","next":["item","cart","legacy"]}"#],
      removing: ["promo"])
    let (after, events, _) = try migrate(state, to: [v2])
    #expect(routes(after) == ["c1 home"])
    #expect(describe(events) == ["stopped c2 promo migrated", "migrated 1 -> 2"])
  }

  @Test("a route removed with a replacement is shown as it in place: same id, params fitted")
  func removeWithReplacement() throws {
    let state = try session("home", [.push(route("legacy", ["old": "y"])), .push(item(4))])
    let v2 = try shop(
      version: 2, migrate: #"{"removed":{"legacy":"promo"}}"#,
      replacing: ["home": #"{"name":"home","next":["item","cart","promo"]}"#],
      removing: ["legacy"])
    let (after, events, summary) = try migrate(state, to: [v2])
    // promo allows item after it, so the pushed item stays.
    #expect(routes(after) == ["c1 home", "c2 promo", "c3 item"])
    #expect(after[c(2)]?.params == [:])
    #expect(describe(events) == ["migrated 1 -> 2"])
    #expect(summary.outcome == .migrated)
  }

  @Test("params are fitted: undeclared ones dropped, missing defaults filled, types kept")
  func paramsFitted() throws {
    let state = try session(
      "home", [.push(route("legacy", ["old": "y"])), .pop(.count(1)), .push(item(3))])
    let v2 = try shop(
      version: 2,
      replacing: [
        "item":
          #"{"name":"item","params":{"id":{"type":"number","required":true},"sort":{"type":"string","default":"asc"}},"next":["item","cart"]}"#
      ])
    let (after, events, _) = try migrate(state, to: [v2])
    // An int still fits a number param.
    #expect(after[c(3)]?.params == ["id": .number(3), "sort": .string("asc")])
    #expect(describe(events) == ["migrated 1 -> 2"])

    let v2b = try shop(
      version: 2,
      replacing: ["item": #"{"name":"item","path":"/item","next":["item","cart"]}"#])
    let (dropped, _, _) = try migrate(state, to: [v2b])
    #expect(dropped[c(3)]?.params == [:])
  }

  @Test("a required param still missing after fitting stops the coordinator with its subtree")
  func requiredParamMissing() throws {
    let state = try session(
      "home", [.push(item(1)), .push(item(2)), .present(route("cart"), style: .sheet)])
    let v2 = try shop(
      version: 2,
      replacing: [
        "item":
          #"{"name":"item","params":{"id":{"type":"int","required":true},"shop":{"type":"string","required":true}},"next":["item","cart"]}"#
      ])
    let (after, events, summary) = try migrate(state, to: [v2])
    #expect(routes(after) == ["c1 home"])
    #expect(
      describe(events) == [
        "stopped c4 cart migrated", "stopped c3 item migrated", "stopped c2 item migrated",
        "migrated 1 -> 2",
      ])
    #expect(summary.stopped == ["item": 2, "cart": 1])
  }

  @Test("a param whose type changed is dropped, and a required one then stops it")
  func paramTypeChanged() throws {
    let state = try session("home", [.push(item(1))])
    let v2 = try shop(
      version: 2,
      replacing: [
        "item":
          #"{"name":"item","params":{"id":{"type":"string","required":true}},"next":["item","cart"]}"#
      ])
    let (after, _, _) = try migrate(state, to: [v2])
    #expect(routes(after) == ["c1 home"])
  }

  @Test("a child its parent's next now excludes is stopped with its subtree")
  func nextExcludes() throws {
    let state = try session(
      "home", [.push(item(1)), .push(item(2)), .present(route("cart"), style: .sheet)])
    let v2 = try shop(
      version: 2,
      replacing: [
        "item": #"{"name":"item","params":{"id":{"type":"int","required":true}},"next":["cart"]}"#
      ])
    let (after, events, _) = try migrate(state, to: [v2])
    #expect(routes(after) == ["c1 home", "c2 item"])
    #expect(
      describe(events) == [
        "stopped c4 cart migrated", "stopped c3 item migrated", "migrated 1 -> 2",
      ])
  }

  @Test("a child shown in a presentation its route no longer permits is stopped")
  func presentationNoLongerPermitted() throws {
    let state = try session("home", [.push(item(1)), .present(route("cart"), style: .sheet)])
    let v2 = try shop(
      version: 2,
      replacing: [
        "cart":
          #"{"name":"cart","presentation":"fullScreenCover","presentations":["fullScreenCover"]}"#
      ])
    let (after, events, _) = try migrate(state, to: [v2])
    #expect(routes(after) == ["c1 home", "c2 item"])
    #expect(describe(events) == ["stopped c3 cart migrated", "migrated 1 -> 2"])
  }

  @Test("a root whose route is removed restarts the tree at the graph's root")
  func rootRemovedRestarts() throws {
    let state = try session("main", [.selectTab(.index(1), container: nil)])
    let v2 = try shop(
      version: 2, migrate: #"{"removed":{"main":null}}"#, removing: ["main"])
    let (after, events, summary) = try migrate(state, to: [v2])
    #expect(routes(after) == ["c4 home"])
    #expect(after.rootID == c(4))
    #expect(
      describe(events) == [
        "stopped c3 account migrated", "stopped c2 feed migrated", "stopped c1 main migrated",
        "started c4 home root under -", "migrated 1 -> 2",
      ])
    #expect(
      summary
        == MigrationSummary(outcome: .restarted, stopped: ["main": 1, "feed": 1, "account": 1]))
  }

  @Test("a root no longer allowed as a root, or no longer open, restarts the tree")
  func rootNotAllowedRestarts() throws {
    let state = try session("main")
    let v2 = try shop(
      version: 2, replacing: ["main": #"{"name":"main","tabs":["feed","account"]}"#])
    let (after, _, summary) = try migrate(state, to: [v2])
    #expect(routes(after) == ["c4 home"])
    #expect(summary.outcome == .restarted)

    let (closed, _, _) = try migrate(
      state, to: [try shop(version: 2)], isOpen: { $0.name != "main" })
    #expect(routes(closed) == ["c4 home"])
  }

  @Test("a restart that the graph's root cannot make on its own is refused, changing nothing")
  func restartImpossible() throws {
    let state = try session("main")
    let v2 = try shop(
      version: 2, migrate: #"{"removed":{"main":null}}"#,
      replacing: ["home": #"{"name":"home","params":{"key":{"type":"string","required":true}}}"#],
      removing: ["main"])
    #expect(throws: NavigationError.self) { try state.migrated(to: v2) }
    #expect(throws: NavigationError.self) { try state.migrationSummary(through: [v2]) }
  }

  @Test("a closed route (isOpen false) is stopped like one the graph forbids")
  func closedRouteStops() throws {
    let state = try session("home", [.push(item(1)), .present(route("cart"), style: .sheet)])
    let (after, events, _) = try migrate(
      state, to: [try shop(version: 2)], isOpen: { $0.name != "item" })
    #expect(routes(after) == ["c1 home"])
    #expect(
      describe(events) == [
        "stopped c3 cart migrated", "stopped c2 item migrated", "migrated 1 -> 2",
      ])
  }

  @Test("tabs follow the container's route: kept tabs keep ids, new ones start, selection follows")
  func tabsFollow() throws {
    let state = try session("main", [.selectTab(.index(1), container: nil)])
    #expect(state[c(1)]?.selectedTab == 1)
    let v2 = try shop(
      version: 2,
      replacing: ["main": #"{"name":"main","root":true,"tabs":["account","news","feed"]}"#],
      adding: [#"{"name":"news"}"#])
    let (after, events, summary) = try migrate(state, to: [v2])
    #expect(after[c(1)]?.children == [c(3), c(4), c(2)])
    #expect(after[c(1)]?.selectedTab == 0)  // account, still selected
    #expect(describe(events) == ["started c4 news tab under c1", "migrated 1 -> 2"])
    #expect(summary.outcome == .migrated)

    let v2b = try shop(
      version: 2, migrate: #"{"removed":{"account":null}}"#,
      replacing: ["main": #"{"name":"main","root":true,"tabs":["feed"]}"#], removing: ["account"])
    let (fewer, fewerEvents, _) = try migrate(state, to: [v2b])
    #expect(fewer[c(1)]?.children == [c(2)])
    #expect(fewer[c(1)]?.selectedTab == 0)
    #expect(describe(fewerEvents) == ["stopped c3 account migrated", "migrated 1 -> 2"])
  }

  @Test("a container whose new tab is closed cannot stay")
  func closedNewTab() throws {
    let state = try session("home", [.push(route("promo"))])
    let v2 = try shop(
      version: 2, replacing: ["promo": #"{"name":"promo","tabs":["feed","account"]}"#])
    let (after, _, _) = try migrate(state, to: [v2], isOpen: { $0.name != "account" })
    #expect(routes(after) == ["c1 home"])
  }

  @Test("versions apply in order as one operation: one version bump, one session.migrated")
  func chained() throws {
    let state = try session("home", [.push(item(1))])
    let v2 = try shop(
      version: 2, migrate: #"{"renamed":{"item":"product"}}"#,
      replacing: [
        "home": #"{"name":"home","next":["product","cart","promo","legacy"]}"#,
        "item":
          #"{"name":"product","params":{"id":{"type":"int","required":true}},"next":["product","cart"]}"#,
        "promo": #"{"name":"promo","next":["product"]}"#,
        "feed": #"{"name":"feed","next":["product"]}"#,
      ])
    let v3 = try shop(
      version: 5, migrate: #"{"renamed":{"product":"article"}}"#,
      replacing: [
        "home": #"{"name":"home","next":["article","cart","promo","legacy"]}"#,
        "item":
          #"{"name":"article","params":{"id":{"type":"int","required":true}},"next":["article","cart"]}"#,
        "promo": #"{"name":"promo","next":["article"]}"#,
        "feed": #"{"name":"feed","next":["article"]}"#,
      ])
    let (after, events, _) = try migrate(state, to: [v2, v3])
    #expect(routes(after) == ["c1 home", "c2 article"])
    #expect(describe(events) == ["migrated 1 -> 5"])
    #expect(after.version == state.version + 1)
  }

  @Test("a migration must go up through versions of the same graph, on a live session")
  func refusedPaths() throws {
    let state = try session()
    func code(_ graphs: [RouteGraph], _ state: NavigationState) -> NavigationError.Code? {
      do {
        _ = try state.migrated(through: graphs)
        return nil
      } catch {
        return error.code
      }
    }
    #expect(code([], state) == .invalidRequest)
    #expect(code([try shop(version: 1)], state) == .invalidRequest)
    #expect(code([try shop(version: 3), try shop(version: 2)], state) == .invalidRequest)
    #expect(code([demoGraph], state) == .invalidRequest)
    var ended = state
    _ = ended.end(reason: .deleted)
    #expect(code([try shop(version: 2)], ended) == .sessionEnded)
  }

  @Test("a dry run's report adds up sessions, outcomes and stops per route")
  func report() throws {
    let v2 = try shop(
      version: 2, migrate: #"{"removed":{"main":null,"promo":null}}"#,
      replacing: ["home": #"{"name":"home","next":["item","cart","legacy"]}"#],
      removing: ["main", "promo"])
    let states = [
      try session("home"), try session("home", [.push(route("promo"))]), try session("main"),
      try session("home", [.push(item(1))]),
    ]
    var report = MigrationReport()
    for state in states { report.add(try state.migrationSummary(through: [v2])) }
    #expect(report.sessions == 4)
    #expect(report.unchanged == 2)
    #expect(report.migrated == 2)
    #expect(report.restarted == 1)
    #expect(report.stopped == ["promo": 1, "main": 1, "feed": 1, "account": 1])
  }
}

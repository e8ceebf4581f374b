import Foundation
import NavJSON
import Testing

@testable import NavigationCore

// Random states of the demo graph moved to random next versions of it (renames, removals with
// and without replacements, changed next lists, presentations, params, tabs and root flags),
// checked against the shape rules, the event rules and what the migration promises. A failure
// names its seed; replay one with NAV_MIGRATION_SEED=<seed>, run more with
// NAV_MIGRATION_CASES=<count>.

/// A route declaration being changed, written back as JSON for the real decoder.
private struct RouteModel {
  var name: String
  var params: [(name: String, spec: ParamSpec)]
  var presentation: Presentation
  var presentations: [Presentation]
  var next: [String]?
  var tabs: [String]?
  var root: Bool

  init(_ route: Route) {
    name = route.name
    params = route.params
    presentation = route.presentation
    presentations = Presentation.explicit.filter { route.presentations.contains($0) }
    next = route.next?.sorted()
    tabs = route.tabs
    root = route.mayBeRoot
  }

  /// No `path`: the decoder derives `/name/{required...}`, unique with the name.
  var json: JSONValue {
    var object = JSONObject()
    object["name"] = .string(name)
    var declarations = JSONObject()
    for (name, spec) in params {
      var declaration = JSONObject()
      declaration["type"] = .string(spec.type.rawValue)
      if spec.required { declaration["required"] = true }
      if let value = spec.defaultValue { declaration["default"] = value.json }
      declarations[name] = .object(declaration)
    }
    object["params"] = .object(declarations)
    object["presentation"] = .string(presentation.rawValue)
    object["presentations"] = .array(presentations.map { .string($0.rawValue) })
    if let next { object["next"] = .array(next.map(JSONValue.string)) }
    if let tabs { object["tabs"] = .array(tabs.map(JSONValue.string)) }
    if root { object["root"] = true }
    return .object(object)
  }
}

/// Random next versions of a graph.
private struct GraphChanger {
  var random: SplitMix64

  /// `graph` with its routes renamed only: nothing else changes, so every coordinator can stay.
  mutating func renamedOnly(_ graph: RouteGraph) -> RouteGraph? {
    change(graph, renames: 3, removals: 1_000_000, edits: 1_000_000)
  }

  /// `graph` changed at random; nil when the decoder refuses the result (a tab given a required
  /// param, say), which the caller skips.
  mutating func changed(_ graph: RouteGraph) -> RouteGraph? {
    change(graph, renames: 5, removals: 7, edits: 5)
  }

  /// Each route is renamed with a chance of one in `renames`, removed one in `removals` (half
  /// of them replaced), and each of its fields edited one in `edits`.
  private mutating func change(_ graph: RouteGraph, renames: Int, removals: Int, edits: Int)
    -> RouteGraph?
  {
    var models = graph.routes.map(RouteModel.init)
    var renamed: [String: String] = [:]
    var removed: [String: String?] = [:]
    var rootRoute = graph.rootRoute
    for model in models {
      if random.chance(renames) {
        renamed[model.name] = model.name + "V\(graph.version + 1)"
      } else if random.chance(removals) {
        removed[model.name] = .some(nil)
      }
    }
    if removed.count == models.count { removed.removeValue(forKey: models[0].name) }
    func newName(_ name: String) -> String? {
      removed[name] != nil ? nil : renamed[name] ?? name
    }
    models = models.compactMap { model in
      guard let name = newName(model.name) else { return nil }
      var changed = model
      changed.name = name
      changed.next = model.next?.compactMap(newName)
      changed.tabs = model.tabs?.compactMap(newName)
      if changed.tabs?.isEmpty == true { changed.tabs = nil }
      return changed
    }
    let names = models.map(\.name)
    for name in removed.keys.sorted() where random.chance(2) {
      removed[name] = .some(random.pick(names))
    }
    rootRoute = newName(rootRoute) ?? random.pick(names)
    for index in models.indices {
      if random.chance(edits) {
        models[index].next =
          random.chance(3) ? nil : names.filter { _ in random.chance(2) }
      }
      if random.chance(edits) {
        let presentations = Presentation.explicit.filter { _ in random.chance(2) }
        if !presentations.isEmpty {
          models[index].presentations = presentations
          models[index].presentation = presentations[0]
        }
      }
      if random.chance(edits) { models[index].root.toggle() }
      if random.chance(edits) {
        switch random.int(0...3) {
        case 0: models[index].params.append(("extra", ParamSpec(type: .int, required: true)))
        case 1:
          models[index].params.append(
            ("flag", ParamSpec(type: .bool, defaultValue: .bool(random.chance(2)))))
        case 2: models[index].params = []
        default:
          models[index].params = models[index].params.map { param in
            var spec = param.spec
            spec.type = random.pick([.string, .int, .number])
            spec.defaultValue = nil
            return (param.name, spec)
          }
        }
      }
      if random.chance(edits), var tabs = models[index].tabs {
        switch random.int(0...2) {
        case 0: tabs.reverse()
        case 1: tabs.removeLast()
        default: tabs.append(random.pick(names))
        }
        models[index].tabs = tabs.isEmpty ? nil : tabs
      }
    }
    var migrate = JSONObject()
    var renamedJSON = JSONObject()
    for (old, new) in renamed.sorted(by: { $0.key < $1.key }) { renamedJSON[old] = .string(new) }
    var removedJSON = JSONObject()
    for (old, replacement) in removed.sorted(by: { $0.key < $1.key }) {
      removedJSON[old] = replacement.map(JSONValue.string) ?? .null
    }
    migrate["renamed"] = .object(renamedJSON)
    migrate["removed"] = .object(removedJSON)
    var document = JSONObject()
    document["name"] = .string(graph.name)
    document["version"] = .int(graph.version + 1)
    document["root"] = .string(rootRoute)
    document["migrate"] = .object(migrate)
    document["routes"] = .array(models.map(\.json))
    return try? RouteGraph.decode(JSONValue.object(document).encoded, source: "random.json")
  }
}

/// A random state of the demo graph, from a random root through random commands.
private func randomState(_ random: inout SplitMix64) -> NavigationState? {
  var generator = CommandGenerator(seed: random.next())
  let limit = random.chance(4) ? 8 : 256
  guard
    var state = try? NavigationState.start(
      graph: demoGraph, root: RouteRequest(route: random.pick(CommandGenerator.roots)),
      limits: NavigationLimits(maxCoordinators: limit)
    ).0
  else { return nil }
  for _ in 0..<random.int(0...40) { _ = try? state.apply(generator.command(in: state)) }
  return state
}

/// Every promise of a migration from `before` along `graphs`; empty when all hold.
private func migrationViolations(_ before: NavigationState, _ graphs: [RouteGraph]) -> [String] {
  let after: NavigationState
  let events: [NavigationEvent]
  let summary: MigrationSummary
  do {
    (after, events) = try before.migrated(through: graphs)
  } catch {
    // Refused only when the tree must restart and cannot: the new root route needs params, or
    // does not fit the limit. The dry run must say the same.
    guard error.code == .invalidParams || error.code == .coordinatorLimit else {
      return ["refused: \(error)"]
    }
    do {
      _ = try before.migrationSummary(through: graphs)
      return ["the migration is refused but not its dry run: \(error)"]
    } catch {
      return []
    }
  }
  do {
    summary = try before.migrationSummary(through: graphs)
  } catch {
    return ["the dry run is refused but not the migration: \(error)"]
  }
  var problems = after.invariantViolations()
  problems += eventRuleViolations(events, before: before, after: after, orderedByOperation: true)
  guard let last = graphs.last else { return problems }
  if events.last?.kind != .sessionMigrated(from: before.graphVersion, to: last.version) {
    problems.append("the last event is not session.migrated")
  }
  if after.graphVersion != last.version { problems.append("graphVersion \(after.graphVersion)") }

  var stopped: [String: Int] = [:]
  var stoppedIDs: Set<CoordinatorID> = []
  for event in events {
    guard case .stopped(let id, let route, let reason) = event.kind else { continue }
    if reason != .migrated { problems.append("\(id) stopped with reason \(reason)") }
    stopped[route, default: 0] += 1
    stoppedIDs.insert(id)
  }
  if summary.stopped != stopped {
    problems.append("the dry run stops \(summary.stopped), the migration \(stopped)")
  }
  let unchanged = after.coordinators == before.coordinators && events.count == 1
  if (summary.outcome == .unchanged) != unchanged {
    problems.append("the dry run says \(summary.outcome), the tree is unchanged: \(unchanged)")
  }
  if (summary.outcome == .restarted) != (after.rootID != before.rootID) {
    problems.append(
      "the dry run says \(summary.outcome), the root went \(String(describing: before.rootID)) -> \(String(describing: after.rootID))"
    )
  }
  // Ids survive: what was not stopped is still there, under the name its migration gives it.
  for node in before.coordinators.values where !stoppedIDs.contains(node.id) {
    var expected = node.route
    for graph in graphs {
      guard case .shownAs(let name) = graph.migration.fate(of: expected, in: graph) else {
        problems.append("\(node.id) '\(node.route)' was removed but not stopped")
        break
      }
      expected = name
    }
    if after[node.id]?.route != expected {
      problems.append(
        "\(node.id) '\(node.route)' is \(after[node.id]?.route ?? "gone"), not '\(expected)'")
    }
  }
  return problems
}

private func environmentNumber(_ name: String) -> UInt64? {
  ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) }
}

@Suite("random migrations")
struct MigrationPropertyTests {
  static let caseCount = environmentNumber("NAV_MIGRATION_CASES") ?? 2_000

  func seeds() -> [UInt64] {
    environmentNumber("NAV_MIGRATION_SEED").map { [$0] } ?? Array(0..<Self.caseCount)
  }

  @Test("any random state moved to any random next version (or two) keeps every rule")
  func randomMigrations() {
    var loaded = 0
    var outcomes: [MigrationSummary.Outcome: Int] = [:]
    for seed in seeds() {
      var random = SplitMix64(seed: seed)
      var changer = GraphChanger(random: SplitMix64(seed: seed &+ 0x5EED))
      guard let state = randomState(&random), let v2 = changer.changed(demoGraph) else { continue }
      var graphs = [v2]
      if random.chance(4), let v3 = changer.changed(v2) { graphs.append(v3) }
      loaded += 1
      let problems = migrationViolations(state, graphs)
      if !problems.isEmpty {
        Issue.record(
          "seed \(seed): \(problems)\nfrom \(state.coordinators.values.map { "\($0.id) \($0.route)" })"
        )
        return
      }
      if let summary = try? state.migrationSummary(through: graphs) {
        outcomes[summary.outcome, default: 0] += 1
      }
    }
    // The generator must make graphs the decoder takes, and reach every outcome.
    #expect(loaded * 2 > seeds().count)
    if seeds().count > 100 {
      #expect(outcomes.keys.count == 3, "\(outcomes)")
    }
  }

  @Test("a migration that only renames keeps every coordinator, with its id, under its new name")
  func renamesKeepIDs() {
    for seed in seeds() {
      var random = SplitMix64(seed: seed)
      var changer = GraphChanger(random: SplitMix64(seed: seed &+ 0xA11A5))
      guard let state = randomState(&random), let v2 = changer.renamedOnly(demoGraph) else {
        continue
      }
      let problems = migrationViolations(state, [v2])
      guard let (after, events) = try? state.migrated(to: v2) else {
        Issue.record("seed \(seed): refused")
        return
      }
      let keys = state.coordinators.keys
      if !problems.isEmpty || after.coordinators.keys != keys || events.count != 1 {
        Issue.record("seed \(seed): \(problems), \(describe(events))")
        return
      }
    }
  }

  @Test("a migration to an identical graph changes nothing but the versions")
  func identicalGraph() throws {
    let document = try JSONParser.parse(PackageResources.demo_json)
    guard var object = document.objectValue else { return }
    object["version"] = 2
    let v2 = try RouteGraph.decode(JSONValue.object(object).encoded, source: "demo v2")
    for seed in seeds() {
      var random = SplitMix64(seed: seed)
      guard let state = randomState(&random) else { continue }
      let problems = migrationViolations(state, [v2])
      guard let (after, events) = try? state.migrated(to: v2),
        let summary = try? state.migrationSummary(through: [v2])
      else {
        Issue.record("seed \(seed): refused")
        return
      }
      if !problems.isEmpty || after.coordinators != state.coordinators
        || after.lastIssuedID != state.lastIssuedID || after.rootID != state.rootID
        || describe(events) != ["migrated 1 -> 2"]
        || summary != MigrationSummary(outcome: .unchanged)
      {
        Issue.record("seed \(seed): \(problems), \(describe(events))")
        return
      }
    }
  }
}

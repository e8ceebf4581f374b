import NavJSON
import NavStateWire
package import NavigationCore
import Synchronization

/// Sessions moving to a newer version of their graph: lazily at their next call, or all at once
/// when the backend asks (`POST /v1/graphs/{name}/migrate`).
extension SessionStore {
  /// Moves the session to its graph's newest version if one was loaded since it last looked.
  /// Costs one atomic read when none was.
  package func migrateIfBehind(_ record: SessionRecord, _ data: inout SessionRecord.Data)
    throws(EngineRefusal)
  {
    let generation = catalog.generation
    guard data.catalogGeneration != UInt32(truncatingIfNeeded: generation) else { return }
    let newer = catalog.versions(after: data.navigation.graph)
    if !newer.isEmpty { _ = try migrate(record, &data, through: newer) }
    data.catalogGeneration = UInt32(truncatingIfNeeded: generation)
  }

  /// One versioned step to the last of `newer`: the core's migration, its events logged and
  /// journaled (undone if the journal cannot take them), delivered to open streams, each of
  /// which then gets a `reset` with the whole new state. A session the core cannot move (its
  /// graph's new root needs a param without a default) stays on its version, and nil is
  /// returned; else what a dry run would have said of the move.
  private func migrate(
    _ record: SessionRecord, _ data: inout SessionRecord.Data, through newer: [RouteGraph]
  ) throws(EngineRefusal) -> MigrationSummary? {
    let from = data.navigation.graphVersion
    let migrated: (NavigationState, [NavigationEvent], MigrationSummary)
    do {
      migrated = try data.navigation.migratedAndSummarized(
        through: newer, isOpen: Self.isOpen(in: data, under: newer))
    } catch {
      return nil
    }
    let undo = (data.navigation, data.log.mark, data.updatedAt, data.activeSince)
    let activeBefore = feed.isOn ? data.navigation.activeScreen : nil
    data.navigation = migrated.0
    for event in migrated.1 { data.log.append(event) }
    data.updatedAt = .now()
    data.history.append(
      SessionHistory.Entry(
        version: data.navigation.version, at: data.updatedAt, by: .server,
        change: .migrate(from: from, to: data.navigation.graphVersion)),
      state: data.navigation, limit: configuration.historyVersions)
    var feedItems: [FeedItem] = []
    if feed.isOn {
      feedItems = FeedItems.change(
        session: record.key, at: data.updatedAt, before: activeBefore,
        activeSince: data.activeSince, state: data.navigation, events: migrated.1,
        contextBefore: nil, transition: { .migrate })
      if feedItems.last?.kind == .screenViewed { data.activeSince = data.updatedAt }
      number(&feedItems)
    }
    // Waited for under the session's lock: a migration is rare (once per graph version).
    if let storage,
      !storage.recordMigration(of: record, data: data, from: from, feed: feedItems).confirmed()
    {
      data.navigation = undo.0
      data.log.rollback(to: undo.1)
      data.updatedAt = undo.2
      data.activeSince = undo.3
      data.history.removeNewest()
      giveUp(feedItems)
      throw storage.refusal
    }
    show(feedItems)
    // The tree's encoding may keep its shape while its routes and params changed.
    data.dropCache()
    delivered(data.deliver(data.streamEntries(migrated.1)))
    if !data.subscribers.isEmpty {
      var snapshot = data
      data.deliverReset { viewer in
        var writer = JSONWriter(capacity: 1024)
        record.writeState(
          of: &snapshot, into: &writer, viewer: viewer, watchers: shareWatchers)
        return writer.bytes
      }
    }
    reaccount(&data)
    data.routeCounts = catalog.counts(for: data.navigation.graph)
    account(migrated.1, counts: data.routeCounts)
    counters.countMigration(graph: data.navigation.graph.name)
    return migrated.2
  }

  /// Whether a route of the newest of `graphs` is open in the session's context (docs/behaviour.md section 10): a
  /// route the new version guards, and the context does not open, stops like any other the new
  /// version forbids.
  package static func isOpen(in data: SessionRecord.Data, under graphs: [RouteGraph])
    -> (Route) -> Bool
  {
    let context = data.navigation.context
    guard let target = graphs.last, target.hasGuards else { return { _ in true } }
    return { route in target.isOpen(route.name, in: context) }
  }

  /// What migrating every live session of `graph`'s name to `graph` (not yet loaded) would do.
  package func dryRun(_ graph: RouteGraph) -> MigrationReport {
    var report = MigrationReport()
    forEachSession { record in
      record.data.withLock { data in
        guard !data.ended, data.navigation.graph.name == graph.name else { return }
        let path = catalog.versions(after: data.navigation.graph) + [graph]
        if let summary = try? data.navigation.migrationSummary(
          through: path, isOpen: Self.isOpen(in: data, under: path))
        {
          report.add(summary)
        }
      }
    }
    return report
  }

  /// Moves every live session of the graph called `name` to its newest version now; returns
  /// what was done, as a dry run would have said it.
  package func migrateAll(graph name: String) throws(EngineRefusal) -> MigrationReport {
    var report = MigrationReport()
    var refusal: EngineRefusal?
    let generation = catalog.generation
    forEachSession { record in
      guard refusal == nil else { return }
      record.data.withLock { data in
        guard !data.ended, data.navigation.graph.name == name else { return }
        let newer = catalog.versions(after: data.navigation.graph)
        guard !newer.isEmpty else {
          data.catalogGeneration = UInt32(truncatingIfNeeded: generation)
          return
        }
        do throws(EngineRefusal) {
          if let summary = try migrate(record, &data, through: newer) { report.add(summary) }
          data.catalogGeneration = UInt32(truncatingIfNeeded: generation)
        } catch {
          refusal = error
        }
      }
    }
    if let refusal { throw refusal }
    return report
  }

  /// Loads a new version of a graph: saved first (with a data directory), then in the catalog.
  package func load(_ version: GraphCatalog.Version) throws(EngineRefusal) {
    try graphLoads.withLock { _ throws(EngineRefusal) in
      if let newest = catalog.newest(version.graph.name), newest.version >= version.graph.version {
        throw EngineRefusal.graphVersionExists(name: newest.name, newest: newest.version)
      }
      if let storage, !storage.recordGraph(version) { throw storage.refusal }
      try catalog.add(version)
    }
  }
}

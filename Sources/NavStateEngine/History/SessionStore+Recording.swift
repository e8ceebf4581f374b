package import NavJSON
import NavStateWire
package import NavigationCore
import Synchronization

/// A session's kept history as others take it: a recording (NDJSON: the state at the oldest
/// kept version, then every later entry) and breadcrumbs for crash reporters.
extension SessionStore {
  /// The recording's lines, unredacted, and the graph its params are judged by (the session's).
  package func recording(of record: SessionRecord) throws(EngineRefusal) -> (
    lines: [[UInt8]], graph: RouteGraph
  ) {
    let past = try past(of: record)
    let limit = configuration.historyVersions
    let oldest = past.history.oldest(limit: limit)
    let (start, at) = try Self.kept(
      oldest, of: past, catalog: catalog, configuration: configuration)
    var header = JSONWriter(capacity: 1024)
    header.beginObject()
    header.key("type")
    header.plainString("recording")
    header.key("session")
    header.string(record.id)
    header.key("graph")
    header.string(start.graph.name)
    header.key("graphVersion")
    header.int(start.graphVersion)
    header.key("from")
    header.int(oldest)
    header.key("to")
    header.int(past.navigation.version)
    header.key("state")
    StateJSON.writeState(
      start, id: record.id,
      times: SessionTimes(createdAt: record.createdAt, updatedAt: at, expiresAt: past.expiresAt),
      into: &header)
    header.endObject()
    var lines = [header.bytes]
    for entry in past.history.entries(after: oldest, count: Int.max, limit: limit) {
      var line = JSONWriter(capacity: 256)
      line.beginObject()
      line.key("type")
      line.plainString("entry")
      Self.writeEntryMembers(entry, into: &line)
      line.endObject()
      lines.append(line.bytes)
    }
    return (lines, past.navigation.graph)
  }

  /// `[{timestamp, type, category, data: {from, to}, message}]`, oldest first: one item per
  /// kept entry whose active route changed (the creation from `""`), as crash reporters take
  /// breadcrumbs.
  package func breadcrumbs(of record: SessionRecord) throws(EngineRefusal) -> JSONWriter {
    let past = try past(of: record)
    let history = past.history
    let limit = configuration.historyVersions
    let oldest = history.oldest(limit: limit)
    let (start, _) = try Self.kept(
      oldest, of: past, catalog: catalog, configuration: configuration)
    var writer = JSONWriter(capacity: 4096)
    writer.beginArray()
    if let first = history.entries(after: oldest - 1, count: 1, limit: limit).first,
      case .create = first.change
    {
      Self.writeBreadcrumb(first, from: "", to: Self.pathText(start), into: &writer)
    }
    var previous = start
    let catalog = self.catalog
    let graphPath = { catalog.versions(of: $0, after: $1, upTo: $2) }
    history.replay(after: oldest, from: start, graphPath: graphPath) { entry, state in
      if Self.activeRoute(state) != Self.activeRoute(previous) {
        Self.writeBreadcrumb(
          entry, from: Self.pathText(previous), to: Self.pathText(state), into: &writer)
      }
      previous = state
    }
    writer.endArray()
    return writer
  }

  private static func activeRoute(_ state: NavigationState) -> String? {
    state.activeID.flatMap { state.coordinators[$0]?.route }
  }

  /// The visible path's route names, `/master/detail`.
  private static func pathText(_ state: NavigationState) -> String {
    state.visiblePath.compactMap { state.coordinators[$0].map { "/" + $0.route } }.joined()
  }

  private static func writeBreadcrumb(
    _ entry: SessionHistory.Entry, from: String, to: String, into writer: inout JSONWriter
  ) {
    writer.beginObject()
    writer.key("timestamp")
    writer.double(Double(entry.at.milliseconds) / 1000)
    writer.key("type")
    writer.plainString("navigation")
    writer.key("category")
    writer.plainString("navigation")
    writer.key("data")
    writer.beginObject()
    writer.key("from")
    writer.string(from)
    writer.key("to")
    writer.string(to)
    writer.endObject()
    writer.key("message")
    writer.string("\(entry.change.name) by \(entry.by.name) (version \(entry.version))")
    writer.endObject()
  }
}

extension SessionHistory.Change {
  /// The operation's name, as its `op` says it.
  var name: String {
    switch self {
    case .create: "create"
    case .migrate: "migrate"
    case .unrecorded: "unrecorded"
    case .fork: "fork"
    case .command(let command): command.opName
    }
  }
}

extension SessionHistory.Author {
  /// As `by` says it.
  package var name: String {
    switch self {
    case .client: "client"
    case .backend: "backend"
    case .server: "server"
    }
  }
}

extension Command {
  /// The `op` of this command as a batch element names it.
  var opName: String {
    switch self {
    case .push: "push"
    case .pop: "pop"
    case .present: "present"
    case .dismiss: "dismiss"
    case .back: "back"
    case .replace: "replace"
    case .selectTab: "selectTab"
    case .setPath: "state"
    case .restore: "restore"
    case .deepLink: "deeplink"
    case .teardown: "teardown"
    case .batch: "batch"
    case .setContext: "context"
    case .setLeaveGuard: "leaveGuard"
    case .createShare: "share"
    case .revokeShare: "revokeShare"
    case .discarding(let inner): inner.opName
    }
  }
}

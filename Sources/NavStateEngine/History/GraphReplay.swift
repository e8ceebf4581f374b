package import NavJSON
import NavStateWire
package import NavigationCore

/// Recordings (``SessionStore/recording(of:)``) replayed against a graph version, in scratch
/// states that nothing keeps: which real journeys the version would refuse, and where first.
/// Values in, values out: no session, journal, metric or event is touched.
package enum GraphReplay {
  /// One recording as read: its first line's session, oldest version and state (its visible
  /// path and context), then each later entry's version and `op`.
  package struct Recording: Sendable {
    package var session: String
    package var from: Int
    package var path: [PathEntry]
    package var context: SessionContext
    package var entries: [(version: Int, op: JSONValue)]

    package init(
      session: String, from: Int, path: [PathEntry], context: SessionContext,
      entries: [(version: Int, op: JSONValue)]
    ) {
      self.session = session
      self.from = from
      self.path = path
      self.context = context
      self.entries = entries
    }
  }

  /// The first thing a recording did that the graph version refuses.
  package struct Divergence: Sendable {
    package var recording: Int
    package var session: String
    package var version: Int
    package var op: JSONValue
    package var error: NavigationError
  }

  /// Replays every recording; at most one divergence each.
  package static func run(
    _ recordings: [Recording], on graph: RouteGraph, limits: NavigationLimits
  ) -> [Divergence] {
    var diverged: [Divergence] = []
    for (index, recording) in recordings.enumerated() {
      if let divergence = replay(recording, on: graph, limits: limits) {
        var found = divergence
        found.recording = index
        diverged.append(found)
      }
    }
    return diverged
  }

  private static func replay(_ recording: Recording, on graph: RouteGraph, limits: NavigationLimits)
    -> Divergence?
  {
    func diverged(_ version: Int, _ op: JSONValue, _ error: NavigationError) -> Divergence {
      Divergence(recording: 0, session: recording.session, version: version, op: op, error: error)
    }
    let startOp = startOperation(recording.path)
    guard let root = recording.path.first else {
      return diverged(
        recording.from, startOp, NavigationError(.invalidPath, "the recording's state has no path"))
    }
    var state: NavigationState
    do throws(NavigationError) {
      state = try NavigationState.start(
        graph: graph, root: RouteRequest(route: root.route, params: root.params),
        context: recording.context, limits: limits
      ).0
      _ = try state.apply(.setPath(recording.path))
    } catch {
      return diverged(recording.from, startOp, error)
    }
    // The paths seen, by the recording's versions, for a restore to one of them.
    var paths: [Int: [PathEntry]] = [recording.from: recording.path]
    for (version, op) in recording.entries {
      do throws(NavigationError) {
        if let command = try command(op, paths: paths) {
          _ = try state.apply(command)
        }
      } catch {
        return diverged(version, op, error)
      }
      paths[version] = state.visiblePathEntries
    }
    return nil
  }

  /// The command an entry's `op` asks for, or nil for what a scratch session on one graph version
  /// has nothing to do with: the creation, a migration, a context change (its values are never
  /// recorded), the start of a history.
  private static func command(_ op: JSONValue, paths: [Int: [PathEntry]]) throws(NavigationError)
    -> Command?
  {
    switch op["op"]?.stringValue {
    case "create", "migrate", "context", "unrecorded", "fork", "share", "revokeShare":
      return nil
    case "restore":
      guard let version = op["version"]?.intValue, let path = paths[version] else {
        throw NavigationError(.invalidRequest, "the restored version was not replayed")
      }
      let restore = Command.restore(version: version, path: path)
      return op["discard"]?.boolValue == true ? .discarding(restore) : restore
    case "leaveGuard":
      guard let id = op["coordinator"]?.stringValue.flatMap(CoordinatorID.init) else {
        throw NavigationError(.invalidRequest, "a leave guard names no coordinator")
      }
      return .setLeaveGuard(id, reason: op["reason"]?.stringValue)
    case "batch":
      // A batch element may not be a batch: read as the body of `POST .../batch`.
      let body = JSONObject((op.objectValue?.members ?? []).filter { $0.key != "op" })
      return try CommandDecoder.command(.batch, body: .object(body))
    default:
      return try CommandDecoder.batchOp(op)
    }
  }

  /// How a recording's start is shown when the graph version refuses it.
  private static func startOperation(_ path: [PathEntry]) -> JSONValue {
    var writer = JSONWriter(capacity: 256)
    CommandJSON.writeOp(.setPath(path), into: &writer)
    return (try? JSONParser.parse(writer.bytes)) ?? .null
  }
}

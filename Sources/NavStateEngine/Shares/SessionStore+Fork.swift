import NavJSON
package import NavStateWire
import NavigationCore
import Synchronization

/// Forks: a new session that starts where another was, at any kept version (docs/shares.md).
extension SessionStore {
  /// A new session on `record`'s graph version whose visible path, params and context are those
  /// of `version` (nil: the current one), with ids issued anew and `forkedFrom` naming where it
  /// came from; its history starts at its own version 1. Leave guards, the pending request and
  /// shares are not copied. Answers `{session, token}` as a creation does.
  package func fork(
    _ record: SessionRecord, at version: Int?, by caller: Caller, client: String,
    now: Timestamp = .now()
  ) throws(EngineRefusal) -> CreatedSession {
    if caller.follows { throw EngineRefusal.readOnly(what: "forking a session") }
    // A fork makes a session: where only the backend makes them, only the backend forks.
    if configuration.sessionCreation == .backend, caller != .backend {
      throw EngineRefusal.backendOnly(
        what: "forking a session (sessions are created by the backend only here)")
    }
    let generation = catalog.generation
    let past = try past(of: record)
    let copied = version ?? past.navigation.version
    let source = try Self.kept(copied, of: past, catalog: catalog, configuration: configuration).0
    let origin = ForkOrigin(session: record.id, version: copied)
    let (navigation, events): (NavigationState, [NavigationEvent])
    do {
      (navigation, events) = try NavigationState.fork(
        graph: past.navigation.graph, path: source.visiblePathEntries, context: source.context,
        origin: origin, limits: configuration.limits)
    } catch {
      throw EngineRefusal.navigation(error)
    }
    let history = SessionHistory(
      forkedAt: navigation, from: origin, at: now,
      by: caller.author)
    let (forked, token) = try admit(
      navigation, events: events, history: history, generation: generation, client: client,
      now: now)
    return created(forked, token: token)
  }
}

import Synchronization

/// Who may open one more session: the server's cap (`--max-sessions`) and each client
/// address's (`--max-sessions-per-ip`). Places are taken before a session is made, so concurrent
/// creations cannot overshoot either cap.
package final class SessionAdmission: Sendable {
  private let maxSessions: Int
  private let maxPerClient: Int
  private let registry: SessionRegistry
  /// Live sessions per client address.
  private let clientSessions = Mutex(ClientShares())

  /// Places are counted in `registry`'s session count.
  package init(maxSessions: Int, maxPerClient: Int, counting registry: SessionRegistry) {
    self.maxSessions = maxSessions
    self.maxPerClient = maxPerClient
    self.registry = registry
  }

  /// Takes a place for one more session, in the server and for `client`, or refuses: 503 when
  /// the server is full, 429 when this client holds its share.
  package func reserve(for client: String) throws(EngineRefusal) {
    let reserved = registry.sessionCount.wrappingAdd(1, ordering: .relaxed).newValue
    guard reserved <= maxSessions else {
      registry.sessionCount.wrappingSubtract(1, ordering: .relaxed)
      throw EngineRefusal.tooManySessions(limit: maxSessions)
    }
    let taken = clientSessions.withLock { $0.take(for: client, cap: maxPerClient) }
    guard taken else {
      registry.sessionCount.wrappingSubtract(1, ordering: .relaxed)
      throw EngineRefusal.tooManySessionsForClient(cap: maxPerClient)
    }
  }

  /// Gives back a place taken by ``reserve(for:)`` (a creation that failed, a session that ended).
  package func release(of client: String) {
    registry.sessionCount.wrappingSubtract(1, ordering: .relaxed)
    clientSessions.withLock { $0.giveBack(for: client) }
  }

  /// Counts a session admitted before a restart, whatever the caps say now.
  package func readmit(for client: String) {
    registry.sessionCount.wrappingAdd(1, ordering: .relaxed)
    clientSessions.withLock { $0.add(for: client) }
  }
}

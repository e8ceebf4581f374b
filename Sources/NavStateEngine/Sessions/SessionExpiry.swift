package import NavStateWire
package import NavigationCore
package import Synchronization

/// Deadlines kept across sessions: when each session expires, when each encoded state may be
/// dropped, and the sessions that ended lately (so a client that comes back learns why).
package final class SessionExpiry: Sendable {
  /// Session ids by the time they expire at, as far as known (see
  /// ``SessionStore/expireIdle(now:)``).
  package let expiries = Mutex(DeadlineQueue<SessionID>())
  /// Session ids by the time their encoded state may be dropped, as far as known.
  package let cacheDrops = Mutex(DeadlineQueue<SessionID>())
  /// Sessions that ended lately, for ``SessionStore/endReason(of:token:)``.
  package let endedSessions: Mutex<EndedSessions>
  package let expiredCount = Atomic<Int>(0)

  package init(endedSessionMemorySeconds: Double) {
    endedSessions = Mutex(
      EndedSessions(keepSeconds: endedSessionMemorySeconds, capacity: 100_000))
  }

  package func schedule(_ key: SessionID, expiringAt time: Timestamp) {
    expiries.withLock { $0.push(key, at: time.milliseconds) }
  }

  package func scheduleCacheDrop(_ key: SessionID, at time: Timestamp) {
    cacheDrops.withLock { $0.push(key, at: time.milliseconds) }
  }

  /// Remembers why a session ended, for a client that comes back with its token.
  package func remember(
    _ key: SessionID, token: SessionToken, reason: SessionEndReason, now: Timestamp
  ) {
    endedSessions.withLock {
      $0.remember(key, token: token, reason: reason, now: now.milliseconds)
    }
    if reason == .expired { expiredCount.wrappingAdd(1, ordering: .relaxed) }
  }
}

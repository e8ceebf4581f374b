package import NavigationCore

/// Sessions that ended recently, remembered by id and token digest for a while, so that a client
/// that comes back (typically an event stream resuming after a network change) learns that its
/// session ended, and why, instead of a 404 it cannot tell from a typo.
///
/// Bounded in time and count: an entry is about 100 bytes, so the default 100,000 entries hold
/// under 10 MiB. Not kept across restarts.
package struct EndedSessions {
  package struct Entry: Sendable {
    package var token: SessionToken
    package var reason: SessionEndReason
  }

  package let keepMilliseconds: Int64
  package let capacity: Int
  private var entries: [SessionID: Entry] = [:]
  /// Ids in the order they ended, with when: the oldest go first, by age or by count.
  private var order = DeadlineQueue<SessionID>()

  package init(keepSeconds: Double, capacity: Int) {
    keepMilliseconds = Int64(keepSeconds * 1000)
    self.capacity = max(0, capacity)
  }

  package var count: Int { entries.count }

  package mutating func remember(
    _ key: SessionID, token: SessionToken, reason: SessionEndReason, now: Int64
  ) {
    guard capacity > 0 else { return }
    forget(before: now - keepMilliseconds)
    while entries.count >= capacity, let oldest = order.popFirst() {
      entries.removeValue(forKey: oldest)
    }
    entries[key] = Entry(token: token, reason: reason)
    order.push(key, at: now)
  }

  /// The session `key`, if it ended within the kept time.
  package mutating func entry(of key: SessionID, now: Int64) -> Entry? {
    forget(before: now - keepMilliseconds)
    return entries[key]
  }

  private mutating func forget(before time: Int64) {
    for key in order.popDue(now: time) { entries.removeValue(forKey: key) }
  }
}

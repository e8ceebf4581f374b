package import NavigationCore

/// Where the engine hands what it accepted before it answers: the data directory's journal
/// (NavStatePersistence) today, any store that keeps records in order. The engine calls these
/// under the session's lock, in the order the session changed; a store writes (or queues) the
/// record in that order and says how it went, without waiting for a disk or a database there.
package protocol SessionStorage: Sendable {
  /// Whether receipts may be `pending`: the engine then serializes a session's changes on its
  /// commit gate (``SessionRecord/commitGate``) while it waits, rather than on its lock.
  var confirmsLater: Bool { get }
  ///
  /// Creations, changes, ends and migrations carry the backend feed's items they made
  /// (numbered): a store keeps them with the record (the outbox), so that the feed comes back
  /// whole with the sessions.
  func recordCreation(
    of session: SessionRecord, _ data: SessionRecord.Data, feed: [FeedItem]
  ) -> StorageReceipt
  /// A change, with the idempotency key it settles (one record, so the two cannot part).
  func recordChange(
    of session: SessionRecord, _ command: Command, data: SessionRecord.Data,
    decided: (key: String, decision: IdempotencyLedger.Decision)?, feed: [FeedItem]
  ) -> StorageReceipt
  /// An idempotency key settled by a call that changed nothing (a refusal).
  func recordDecision(
    of session: SessionRecord, key: String, _ decision: IdempotencyLedger.Decision
  ) -> StorageReceipt
  func recordEnd(of session: SessionRecord, feed: [FeedItem]) -> StorageReceipt
  /// The session moved from graph version `from` to its graph's version now.
  func recordMigration(
    of session: SessionRecord, data: SessionRecord.Data, from: Int, feed: [FeedItem]
  ) -> StorageReceipt
  /// A graph version loaded while running, kept so that sessions on it outlive a restart.
  /// Called with no session's lock held; returns once it is kept (or could not be).
  func recordGraph(_ version: GraphCatalog.Version) -> Bool
  /// What a refused record answers: `journal_unavailable` for a data directory,
  /// `store_unavailable` for a database.
  var refusal: EngineRefusal { get }
}

extension SessionStorage {
  package var refusal: EngineRefusal { .journalUnavailable }
}

/// What a store did with a record.
package enum StorageReceipt: Sendable {
  /// Kept as the store promises (written, flushed if it flushes each record): answer it.
  case stored
  /// Not kept, and nothing of it will be: the change must be undone or refused.
  case refused
  /// Queued in order; kept once the confirmation says so. The engine waits for it with no lock
  /// held and answers (and sends the change to streams) only then.
  case pending(any StorageConfirmation)

  /// Waits for a pending record (call with no lock held); true when the record is kept.
  package func confirmed() -> Bool {
    switch self {
    case .stored: true
    case .refused: false
    case .pending(let confirmation): confirmation.wait()
    }
  }
}

/// A record a store has queued: `wait` returns once it is kept (true) or can no longer be
/// (false). Called exactly once, by the caller that got it, with no lock held.
package protocol StorageConfirmation: Sendable {
  func wait() -> Bool
}

import NavigationCore
import Synchronization

/// Safe retries: the `Idempotency-Key`s a session was sent (see ``IdempotencyLedger``).
extension SessionStore {
  /// Claims `claim.key` on the session, or says what was decided under it before.
  package func claim(_ claim: IdempotencyClaim, on record: SessionRecord)
    throws(EngineRefusal) -> IdempotencyLedger.Claim
  {
    try record.data.withLock { (data) throws(EngineRefusal) -> IdempotencyLedger.Claim in
      guard !data.ended else { throw EngineRefusal.sessionNotFound }
      let ledger = data.idempotency ?? IdempotencyLedger()
      data.idempotency = ledger
      return ledger.claim(claim.key, fingerprint: claim.fingerprint)
    }
  }

  /// Records what was answered under a claimed key, unless the call did so itself (a change);
  /// `decision` nil (a 5xx) is no decision, and frees the key for a retry.
  package func settle(
    _ claim: IdempotencyClaim, of record: SessionRecord, with decision: IdempotencyLedger.Decision?
  ) {
    let storage = self.storage
    let receipt = record.data.withLock { data -> StorageReceipt? in
      guard !data.ended, let ledger = data.idempotency, !ledger.isDecided(claim.key) else {
        return nil
      }
      guard let decision else {
        ledger.release(claim.key)
        return nil
      }
      data.settle(claim.key, with: decision)
      reaccount(&data)
      return storage?.recordDecision(of: record, key: claim.key, decision)
    }
    // Nothing changed, so a record that cannot be kept loses no change: a restart would decide
    // a retry afresh, as the same refusal. Waited for all the same, with the lock let go.
    _ = receipt?.confirmed()
  }
}

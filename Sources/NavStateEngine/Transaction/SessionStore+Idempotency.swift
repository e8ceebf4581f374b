import NavigationCore
import Synchronization

/// Safe retries: the `Idempotency-Key`s a session was sent (see ``IdempotencyLedger``).
///
/// A change claims its key, applies and settles it under one lock (see
/// ``SessionStore/apply(_:to:by:precondition:minimal:idempotency:)``). A request the engine
/// refuses keeps its key claimed, and the API, which words refusals, settles it here once
/// worded; a request refused before it reached the engine (a body that is no command) claims
/// and settles its key here in one step.
extension SessionStore {
  /// Records `decision` under `claim`'s key, or frees the key when `decision` is nil (a 5xx:
  /// no decision, so a retry is decided afresh). Says what the key held when it was not this
  /// call's to settle: a replay, or a key in use or reused.
  package func decide(
    _ claim: IdempotencyClaim, of record: SessionRecord,
    with decision: IdempotencyLedger.Decision?
  ) -> IdempotencyLedger.Claim {
    let storage = self.storage
    let (verdict, receipt) = record.data.withLock {
      data -> (IdempotencyLedger.Claim, StorageReceipt?) in
      guard !data.ended else { return (.claimed, nil) }
      let ledger = data.idempotency ?? IdempotencyLedger()
      data.idempotency = ledger
      let verdict = ledger.decide(
        claim.key, fingerprint: claim.fingerprint, owner: claim.owner, decision)
      guard verdict == .claimed, let decision else { return (verdict, nil) }
      reaccount(&data)
      return (verdict, storage?.recordDecision(of: record, key: claim.key, decision))
    }
    // Nothing changed, so a record that cannot be kept loses no change: a restart would decide
    // a retry afresh, as the same refusal. Waited for all the same, with the lock let go.
    _ = receipt?.confirmed()
    return verdict
  }
}

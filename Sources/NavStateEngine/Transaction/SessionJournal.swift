package import NavigationCore

/// Where the engine writes what it accepted before it answers (`--data-dir`: NavStatePersistence's
/// journal). Each call returns false when the record could not be written whole; the engine then
/// undoes or refuses the change, so nothing answered is missing after a restart.
package protocol SessionJournal: Sendable {
  func recordCreation(of session: SessionRecord, _ data: SessionRecord.Data) -> Bool
  /// A change, with the idempotency key it settles (one record, so the two cannot part).
  func recordChange(
    of session: SessionRecord, _ command: Command, data: SessionRecord.Data,
    decided: (key: String, decision: IdempotencyLedger.Decision)?
  ) -> Bool
  /// An idempotency key settled by a call that changed nothing (a refusal).
  func recordDecision(
    of session: SessionRecord, key: String, _ decision: IdempotencyLedger.Decision
  ) -> Bool
  func recordEnd(of session: SessionRecord) -> Bool
  /// The session moved from graph version `from` to its graph's version now.
  func recordMigration(of session: SessionRecord, data: SessionRecord.Data, from: Int) -> Bool
  /// A graph version loaded while running, kept so that sessions on it outlive a restart.
  func recordGraph(_ version: GraphCatalog.Version) -> Bool
}

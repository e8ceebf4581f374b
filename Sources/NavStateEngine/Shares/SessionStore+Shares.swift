import NavJSON
package import NavStateWire
package import NavigationCore
import Synchronization

/// Shares of a session: handed out, revoked, expired, and redeemed by handoff code
/// (docs/shares.md). Creating and revoking one is a change like any other: journaled, in the
/// history, an event to every stream.
extension SessionStore {
  /// A share just made, with its token (shown once) and handoff code.
  package struct IssuedShare: Sendable {
    package var share: SessionShare
    package var token: String
    package var code: String?
    package var version: Int
  }

  /// Hands out a share of `record`. A share token may not (403 `share_cannot_share`).
  package func createShare(
    _ request: ShareRequest, on record: SessionRecord, by caller: Caller,
    precondition: VersionPrecondition?, now: Timestamp = .now()
  ) throws(EngineRefusal) -> IssuedShare {
    guard caller.share == nil else { throw EngineRefusal.shareCannotShare }
    let token = SecureRandom.token()
    let created = now.milliseconds
    let share = SessionShare(
      id: SecureRandom.base64url(SecureRandom.bytes(9)), mode: request.mode,
      label: request.label, createdAt: created,
      expiresAt: created + Int64(request.ttlSeconds) * 1000,
      credential: SHA256.hash(token.utf8))
    let applied = try apply(
      .createShare(share), to: record, by: caller, precondition: precondition, minimal: true)
    let version = applied.version
    shareDeadlines.schedule(record.key, at: share.expiresAt)
    var code: String?
    if request.wantsCode {
      code = handoffs.issue(
        HandoffCodes.Grant(
          session: record.key, share: share.id, token: token,
          expiresAt: min(share.expiresAt, created + HandoffCodes.lifetimeSeconds * 1000)))
    }
    return IssuedShare(share: share, token: token, code: code, version: version)
  }

  /// Revokes the share `id` of `record`; its streams end after the `share.revoked` event. A
  /// share token may not (403 `share_cannot_share`).
  package func revokeShare(
    _ id: String, of record: SessionRecord, by caller: Caller,
    precondition: VersionPrecondition?, idempotency: IdempotencyClaim?
  ) throws(EngineRefusal) -> AppliedCommand {
    guard caller.share == nil else { throw EngineRefusal.shareCannotShare }
    // One that expired is gone for callers already: the server's own revocation (reason
    // `expired`) is on its way.
    let now = Timestamp.now().milliseconds
    let live = record.data.withLock { data in
      data.navigation.shares.contains { $0.id == id && $0.isLive(at: now) }
    }
    guard live else {
      throw EngineRefusal.navigation(
        NavigationError(.shareNotFound, "the session has no live share '\(id)'"))
    }
    let applied = try apply(
      .revokeShare(id, reason: .revoked), to: record, by: caller, precondition: precondition,
      minimal: true, idempotency: idempotency)
    handoffs.forget(share: id, of: record.key)
    return applied
  }

  /// Revokes every share that expired by `now`, as the server's own change (`reason:
  /// expired`); a revocation the store cannot keep is tried again at the next tick.
  package func expireShares(now: Timestamp) {
    let milliseconds = now.milliseconds
    for key in shareDeadlines.takeDue(now: milliseconds) {
      guard let record = registry[key] else { continue }
      let expired = record.data.withLock { data in
        data.ended ? [] : data.navigation.expiredShares(at: milliseconds)
      }
      for share in expired {
        do {
          _ = try apply(
            .revokeShare(share.id, reason: .expired), to: record, by: .server,
            precondition: nil, minimal: true
          ).version
          handoffs.forget(share: share.id, of: key)
        } catch {
          // Kept for the next tick (the share is still there, and due).
        }
      }
      let next = record.data.withLock { data in
        data.ended ? nil : data.navigation.shares.map(\.expiresAt).min()
      }
      if let next { shareDeadlines.schedule(key, at: next) }
    }
    handoffs.sweep(now: milliseconds)
  }

  /// Refuses a share's call once its share is revoked or expired, as a wrong token is refused:
  /// checked under the session's lock, since the token was checked before it was taken.
  static func requireStanding(_ caller: Caller, in data: SessionRecord.Data)
    throws(EngineRefusal)
  {
    guard let share = caller.share else { return }
    let now = Timestamp.now().milliseconds
    guard data.navigation.shares.contains(where: { $0.id == share.id && $0.isLive(at: now) })
    else { throw EngineRefusal.sessionNotFound }
  }

  /// A restored session's shares are due to expire like any others.
  package func scheduleShares(of record: SessionRecord) {
    let next = record.data.withLock { data in data.navigation.shares.map(\.expiresAt).min() }
    if let next { shareDeadlines.schedule(record.key, at: next) }
  }

  /// What redeeming a handoff code gave.
  package enum HandoffAnswer {
    /// The share's session as the share sees it, its token and the share.
    case redeemed(state: [UInt8], token: String, share: SessionShare)
    case unknown
    case throttled(retryAfterSeconds: Int)
  }

  /// Redeems `code` for `client` (its address): once, within its lifetime, while its share
  /// stands.
  package func redeemHandoff(_ code: String, client: String, now: Timestamp = .now())
    -> HandoffAnswer
  {
    let milliseconds = now.milliseconds
    switch handoffs.redeem(code, client: client, now: milliseconds) {
    case .throttled(let seconds): return .throttled(retryAfterSeconds: seconds)
    case .unknown: return .unknown
    case .redeemed(let grant):
      guard let record = registry[grant.session] else { return .unknown }
      let found = record.data.withLock { (data) -> ([UInt8], SessionShare)? in
        guard !data.ended,
          let share = data.navigation.shares.first(where: {
            $0.id == grant.share && $0.isLive(at: milliseconds)
          })
        else { return nil }
        let viewer = Viewer(share: share.id, follows: share.mode == .follow)
        return (
          record.encodedState(of: &data, viewer: viewer, watchers: shareWatchers).bytes, share
        )
      }
      guard let (state, share) = found else { return .unknown }
      return .redeemed(state: state, token: grant.token, share: share)
    }
  }
}

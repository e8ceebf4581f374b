import NavJSON
import NavStateWire
package import NavigationCore
import Synchronization

/// Who calls: the holder of a session's token, the backend with one of its keys, or no one.
extension SessionStore {
  /// The key an id names on this node (nil: no session of this node can have it).
  package func key(of id: UnsafeBufferPointer<UInt8>) -> SessionID? {
    configuration.node.map { $0.key(of: id) } ?? SessionID(bytes: id)
  }

  /// The session `key` and who calls it: the holder of its token, or the backend with one of its
  /// keys. `token` is the bearer token's bytes (nil when the call carried none). A wrong token
  /// and an unknown session are refused alike, in the same time.
  package func authorize(key: SessionID?, token: UnsafeBufferPointer<UInt8>?)
    throws(EngineRefusal) -> SessionRecord
  {
    try authorizeCaller(key: key, token: token).record
  }

  /// ``authorize(key:token:)``, saying who called.
  package func authorizeCaller(key: SessionID?, token: UnsafeBufferPointer<UInt8>?)
    throws(EngineRefusal) -> (record: SessionRecord, caller: Caller)
  {
    guard let token else { throw EngineRefusal.missingToken }
    // Decided from the token's shape alone, so it says nothing about sessions. A backend key
    // never has a session token's shape (see BackendKeys), so a session's call pays nothing.
    guard SecureRandom.isWellFormedToken(token) else {
      guard let keys = configuration.backendKeys, keys.matches(token) else {
        throw EngineRefusal.malformedToken
      }
      guard let record = key.flatMap({ registry[$0] })
      else { throw EngineRefusal.sessionNotFound }
      return (record, .backend)
    }
    let record = key.flatMap { registry[$0] }
    // Compared even when the id is unknown, so both failures take the same time.
    guard let record else {
      // The work a wrong token does on a session that exists: a comparison and a digest.
      _ = Self.decoy.matches(token)
      _ = SHA256.hash(token)
      throw EngineRefusal.sessionNotFound
    }
    guard record.token.matches(token) else {
      guard let share = liveShare(of: record, token: token) else {
        throw EngineRefusal.sessionNotFound
      }
      return (record, .share(id: share.id, mode: share.mode))
    }
    return (record, .sessionHolder)
  }

  /// The live share of `record` whose token `token` is. A share is known by its token's
  /// digest: a token that is not the session's pays one SHA-256 (about a microsecond), on a
  /// session with shares or without. A revoked or expired share's token is a wrong token.
  private func liveShare(of record: SessionRecord, token: UnsafeBufferPointer<UInt8>)
    -> SessionShare?
  {
    let shares = record.data.withLock { data in data.ended ? [] : data.navigation.shares }
    // Hashed whether or not the session has shares, so that a wrong token takes as long on
    // either (and as on a session that does not exist).
    let digest = SHA256.hash(token)
    guard !shares.isEmpty else { return nil }
    let now = Timestamp.now().milliseconds
    return shares.first { $0.credential == digest && $0.isLive(at: now) }
  }

  /// Refuses a call that only the backend may make (`what` names it) unless `token` is one of
  /// its keys.
  package func requireBackend(token: UnsafeBufferPointer<UInt8>?, for what: String)
    throws(EngineRefusal)
  {
    guard let token else { throw EngineRefusal.missingToken }
    guard configuration.backendKeys?.matches(token) == true else {
      throw EngineRefusal.backendOnly(what: what)
    }
  }

  /// Who a creation comes from: the backend when `token` is one of its keys, else anyone. With
  /// `--session-creation backend`, anyone else is refused.
  package func creator(token: UnsafeBufferPointer<UInt8>?) throws(EngineRefusal) -> Caller? {
    let isBackend =
      token.map { token in configuration.backendKeys?.matches(token) ?? false } ?? false
    if isBackend { return .backend }
    guard configuration.sessionCreation == .anyone else {
      throw EngineRefusal.backendKeyRequired
    }
    return nil
  }

  /// ``authorize(key:token:)`` for an id and a token as text.
  package func authorize(id: String, token: String) throws(EngineRefusal) -> SessionRecord {
    var id = id
    var token = token
    let sessionKey = id.withUTF8 { self.key(of: $0) }
    let result = token.withUTF8 { bytes in
      Result { () throws(EngineRefusal) in try authorize(key: sessionKey, token: bytes) }
    }
    return try result.get()
  }

  /// Why the session `key` ended, if it ended lately and `token` is its token; nil otherwise
  /// (the caller then answers as for any unknown session).
  package func endReason(of key: SessionID?, token: UnsafeBufferPointer<UInt8>?)
    -> SessionEndReason?
  {
    guard let key, let token else { return nil }
    let now = Timestamp.now().milliseconds
    guard let ended = expiry.endedSessions.withLock({ $0.entry(of: key, now: now) }) else {
      return nil
    }
    guard SecureRandom.isWellFormedToken(token), ended.token.matches(token) else { return nil }
    return ended.reason
  }

  /// What a token for an unknown session is compared with.
  private static let decoy = SessionToken(issuing: SecureRandom.token())

}

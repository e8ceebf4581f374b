public import Foundation
public import OpenAPIRuntime

/// A share of a session, as its creation and a handoff answer it.
public struct Share: Sendable, Hashable, Identifiable {
  /// The share's id, for ``NavStateSession/revokeShare(_:)``; the state's `shares`, its events
  /// and presence name it.
  public var id: String
  public var mode: ShareMode
  /// Who the share is for (`Support: Ana`).
  public var label: String
  public var createdAt: Date
  /// When the server revokes it (a `share.revoked` event with reason `expired`).
  public var expiresAt: Date

  public init(id: String, mode: ShareMode, label: String, createdAt: Date, expiresAt: Date) {
    self.id = id
    self.mode = mode
    self.label = label
    self.createdAt = createdAt
    self.expiresAt = expiresAt
  }
}

/// A share just made: the share, its token (shown only here) and, when asked for, its handoff
/// code.
public struct ShareGrant: Sendable, Hashable {
  public var share: Share
  /// The share's bearer token: give it (with the session's id) to whoever the share is for, who
  /// opens the session with ``NavStateSession/init(serverURL:transport:id:token:options:)``.
  /// Keep it as safely as the session's token.
  public var token: String
  /// The handoff code (10 characters of `23456789ABCDEFGHJKMNPQRSTUVWXYZ`), when asked for:
  /// single use, valid 300 s or until the share expires, to type on another device, which
  /// redeems it with ``NavStateSession/redeemHandoff(code:serverURL:transport:options:)``.
  public var code: String?
}

/// Who watches a session now: one client per credential with event streams of it open.
public struct Presence: Sendable, Hashable {
  public var clients: [PresenceClient]

  public init(clients: [PresenceClient]) {
    self.clients = clients
  }
}

/// One credential with event streams of the session open.
public struct PresenceClient: Sendable, Hashable {
  /// Whose credential: the session's token, a backend key, or a share's token.
  public enum Kind: String, Sendable, Hashable {
    case session, backend, share
  }

  public var kind: Kind
  /// With `share`: the share's id.
  public var share: String?
  /// With `share`: the share's label, to show the user (`Support: Ana is watching`).
  public var label: String?
  /// How many event streams it has open.
  public var streams: Int
  /// Since when it has had a stream open.
  public var since: Date

  public init(kind: Kind, share: String? = nil, label: String? = nil, streams: Int, since: Date) {
    self.kind = kind
    self.share = share
    self.label = label
    self.streams = streams
    self.since = since
  }
}

extension NavStateSession {
  // MARK: Shares

  /// Shares the session: a second credential for it, for `label` (1 to 64 characters, shown to
  /// the user in the state's `shares` and in presence), lasting `ttlSeconds` (`follow`: default
  /// 900, at most 3600; `drive`: default 86400, at most 2592000). `code`: also make a handoff
  /// code for another device.
  ///
  /// Only the session's token or a backend key may share (a share's token throws
  /// `shareCannotShare`); a session holds at most 16 live shares (`tooManyShares`). Sharing is a
  /// change: a version bump and `share.created`.
  public func share(mode: ShareMode, label: String, ttlSeconds: Int? = nil, code: Bool = false)
    async throws(NavStateError) -> ShareGrant
  {
    let seen = lastSeenVersion
    do {
      let created = try await client.createShare(
        path: .init(sid: id),
        body: .json(
          .init(mode: mode.generated, label: label, ttlSeconds: ttlSeconds, code: code ? true : nil)
        )
      ).created.body.json
      madeChange(after: seen)
      return ShareGrant(share: Share(created.share), token: created.token, code: created.code)
    } catch {
      throw NavStateError.from(error)
    }
  }

  /// Ends the share `id` at once: its token then throws `sessionNotFound`, and the event
  /// streams opened with it end after its `share.revoked`. Only the session's token or a backend
  /// key may revoke (a share's token throws `shareCannotShare`); an id the session has no live
  /// share with throws `shareNotFound`.
  public func revokeShare(_ id: String) async throws(NavStateError) {
    let seen = lastSeenVersion
    do {
      _ = try await client.revokeShare(path: .init(sid: self.id, id: id)).noContent
      madeChange(after: seen)
    } catch {
      throw NavStateError.from(error)
    }
  }

  /// Who has event streams of the session open now (the session's token, backend keys,
  /// shares). A live stream hands over the same as it changes: `onPresence` of
  /// ``states(onConnection:onPresence:)``, or ``NavigationModel/presence``.
  public func presence() async throws(NavStateError) -> Presence {
    do {
      return Presence(try await client.getPresence(path: .init(sid: id)).ok.body.json)
    } catch {
      throw NavStateError.from(error)
    }
  }

  // MARK: Forks

  /// A new session, with a token of its own, whose visible path, params and context are this
  /// session's at `version` (default: the current one; else one its history keeps, as for
  /// ``state(at:)``: `invalidVersion`, `historyExpired`). Its state's `forkedFrom` names this
  /// session and version; leave guards, the pending request and shares are not copied. A follow
  /// share's token throws `readOnly`. The new session uses this one's transport and options.
  public func fork(at version: Int? = nil) async throws(NavStateError)
    -> (session: NavStateSession, state: SessionState)
  {
    let created: Components.Schemas.CreatedSession
    do {
      created = try await client.forkSession(
        path: .init(sid: id), body: .json(.init(version: version.map(Int64.init)))
      ).created.body.json
    } catch {
      throw NavStateError.from(error)
    }
    let forked = NavStateSession(
      serverURL: serverURL, transport: transport, id: created.session.id, token: created.token,
      options: options)
    let state = SessionState(created.session)
    forked.saw(state)
    return (forked, state)
  }

  // MARK: Handoff codes

  /// Trades a handoff code (from a share made with `code: true`) for the share: the session
  /// opened with the share's token, the share, and the state as the share sees it. No credential
  /// is needed: the code is one. It is case-insensitive, and spaces and dashes are ignored.
  ///
  /// A code works once: a used, expired or unknown code throws `unknownHandoff` (404), and after
  /// 10 failures in a minute from one address every redemption throws `tooManyAttempts` (429)
  /// until the minute is over.
  public static func redeemHandoff(
    code: String, serverURL: URL, transport: any ClientTransport, options: Options = .init()
  ) async throws(NavStateError) -> (session: NavStateSession, share: Share, state: SessionState) {
    let anonymous = client(serverURL: serverURL, transport: transport, token: nil)
    let redeemed: Components.Schemas.HandoffRedeemed
    do {
      redeemed = try await anonymous.redeemHandoff(body: .json(.init(code: code))).ok.body.json
    } catch {
      throw NavStateError.from(error)
    }
    let session = NavStateSession(
      serverURL: serverURL, transport: transport, id: redeemed.session.id, token: redeemed.token,
      options: options)
    let state = SessionState(redeemed.session)
    session.saw(state)
    return (session, Share(redeemed.share), state)
  }
}

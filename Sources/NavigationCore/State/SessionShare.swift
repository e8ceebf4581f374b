/// What a share lets its holder do (docs/shares.md).
public enum ShareMode: String, Sendable, CaseIterable {
  /// Read only, with sensitive params redacted and no context.
  case follow
  /// Everything the session's token may do, but share or delete the session.
  case drive
}

/// Why a share ended.
public enum ShareEndReason: String, Sendable, CaseIterable {
  case revoked
  case expired
}

/// A link to a session handed to someone else: support staff, a second device, a window.
///
/// Its token is never kept: the state holds the SHA-256 digest of the token's text
/// (`credential`), as a data directory holds a session's, so that neither memory dumps of the
/// tree nor journals give the token away.
public struct SessionShare: Sendable, Equatable {
  /// How many live shares a session may hold at once.
  public static let maxLive = 16

  public var id: String
  public var mode: ShareMode
  /// Who it is for ("Support: Ana", "iPad"): 1 to 64 characters.
  public var label: String
  /// Milliseconds since 1970, like every time the server keeps.
  public var createdAt: Int64
  public var expiresAt: Int64
  /// The SHA-256 digest of the share token's text (32 bytes).
  public var credential: [UInt8]

  public init(
    id: String, mode: ShareMode, label: String, createdAt: Int64, expiresAt: Int64,
    credential: [UInt8]
  ) {
    self.id = id
    self.mode = mode
    self.label = label
    self.createdAt = createdAt
    self.expiresAt = expiresAt
    self.credential = credential
  }

  /// Whether the share still stands at `now` (ms): expired shares are revoked by the server,
  /// and until then count for nothing.
  public func isLive(at now: Int64) -> Bool { expiresAt > now }
}

/// Where a forked session came from: the session and the version it copied.
public struct ForkOrigin: Sendable, Equatable {
  public var session: String
  public var version: Int

  public init(session: String, version: Int) {
    self.session = session
    self.version = version
  }
}

extension NavigationState {
  /// Creates `share`: refused when the session already holds ``SessionShare/maxLive`` shares
  /// live at the share's creation.
  mutating func createShare(_ share: SessionShare, into pending: inout PendingEvents)
    throws(NavigationError)
  {
    guard !shares.contains(where: { $0.id == share.id }) else {
      throw NavigationError(.invalidRequest, "share '\(share.id)' exists")
    }
    let live = shares.count { $0.isLive(at: share.createdAt) }
    guard live < SessionShare.maxLive else {
      throw NavigationError(
        .tooManyShares,
        "the session holds \(live) live shares, the most it may; revoke one first")
    }
    shares.append(share)
    pending.happened(.shareCreated(id: share.id, mode: share.mode, label: share.label))
  }

  mutating func revokeShare(
    _ id: String, reason: ShareEndReason, into pending: inout PendingEvents
  ) throws(NavigationError) {
    guard let index = shares.firstIndex(where: { $0.id == id }) else {
      throw NavigationError(.shareNotFound, "the session has no share '\(id)'")
    }
    shares.remove(at: index)
    pending.happened(.shareRevoked(id: id, reason: reason))
  }

  /// The share whose token's digest is `credential`, if it is live at `now`.
  public func share(credential: [UInt8], at now: Int64) -> SessionShare? {
    guard guarding != nil else { return nil }
    return shares.first { $0.credential == credential && $0.isLive(at: now) }
  }

  /// The shares that expired by `now`, to be revoked.
  public func expiredShares(at now: Int64) -> [SessionShare] {
    shares.filter { !$0.isLive(at: now) }
  }

  /// A new session at `path` with `context`, on `graph`, copied from `origin`: its ids are
  /// issued anew, its events and state are version 1. What a path needs that the context does
  /// not open is refused as a restore would refuse it.
  public static func fork(
    graph: RouteGraph, path: [PathEntry], context: SessionContext, origin: ForkOrigin,
    limits: NavigationLimits = .init()
  ) throws(NavigationError) -> (NavigationState, [NavigationEvent]) {
    guard let first = path.first else {
      throw NavigationError(.invalidPath, "the version has no visible path to copy")
    }
    var (state, events) = try start(
      graph: graph, root: RouteRequest(route: first.route, params: first.params),
      context: context, limits: limits)
    events += try state.apply(.setPath(path))
    state.version = 1
    for index in events.indices { events[index].version = 1 }
    state.forkedFrom = origin
    return (state, events)
  }
}

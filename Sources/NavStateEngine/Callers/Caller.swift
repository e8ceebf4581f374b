public import NavigationCore

/// Who makes a call on a session.
public enum Caller: Sendable, Equatable {
  /// The holder of the session's token: the app on a device.
  case sessionHolder
  /// The app's own backend, with a key of `--backend-key-file`: it may call any session, and
  /// alone sets a session's context.
  case backend
  /// The holder of one of the session's shares (docs/shares.md).
  case share(id: String, mode: ShareMode)
  /// The server itself: a share's expiry.
  case server

  /// Who a history entry says made a change.
  var author: SessionHistory.Author {
    switch self {
    case .backend: .backend
    case .server: .server
    case .sessionHolder, .share: .client
    }
  }

  /// A follow share: it reads what ``FollowView`` leaves.
  package var follows: Bool {
    if case .share(_, .follow) = self { return true }
    return false
  }

  /// The share the call came with, if any.
  package var share: (id: String, mode: ShareMode)? {
    if case .share(let id, let mode) = self { return (id, mode) }
    return nil
  }

  /// How the caller reads the session: a share token sees its own share only, and a follow
  /// share reads without sensitive params or context.
  package var viewer: Viewer {
    guard case .share(let id, let mode) = self else { return .owner }
    return Viewer(share: id, follows: mode == .follow)
  }
}

/// Who reads a session's state, events or history: its owner (the session's token, the
/// backend) or a share.
package struct Viewer: Sendable, Hashable {
  /// The share whose token reads; nil: the owner.
  package var share: String?
  /// A `follow` share: sensitive params redacted and no context (``FollowView``).
  package var follows: Bool

  package static let owner = Viewer(share: nil, follows: false)
}

/// Who may create sessions (`--session-creation`).
public enum SessionCreationPolicy: String, Sendable, CaseIterable {
  /// Any client (the default).
  case anyone
  /// Only the backend: a creation without a backend key is refused (401).
  case backend
}

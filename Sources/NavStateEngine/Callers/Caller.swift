/// Who makes a call on a session.
public enum Caller: Sendable, Equatable {
  /// The holder of the session's token: the app on a device.
  case sessionHolder
  /// The app's own backend, with a key of `--backend-key-file`: it may call any session, and
  /// alone sets a session's context.
  case backend
}

/// Who may create sessions (`--session-creation`).
public enum SessionCreationPolicy: String, Sendable, CaseIterable {
  /// Any client (the default).
  case anyone
  /// Only the backend: a creation without a backend key is refused (401).
  case backend
}

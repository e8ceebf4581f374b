public import NavigationCore

/// Settings of the store, from the command line.
public struct StoreConfiguration: Sendable {
  public var maxSessions: Int = 100_000
  public var sessionTTLSeconds: Double = 30 * 60
  public var limits = NavigationLimits()
  public var eventBufferSize: Int = 1024
  /// Versions of a session its history shows (`--history-versions`): the newest, older first out.
  public var historyVersions: Int = 1000
  /// Bytes one session's event log may hold (the oldest events go first).
  public var eventBufferBytes: Int = 64 * 1024
  /// Sessions one client address may hold at once (429 beyond).
  public var maxSessionsPerClient: Int = 10_000
  /// Bytes of sessions and streams the server may hold (503 `memory_exhausted` beyond).
  public var maxMemoryBytes: Int = 1024 * 1024 * 1024
  /// The largest request body: one operation grows a session by at most about twice that
  /// (its params in the tree, and again in its event), which the memory admission leaves room for.
  public var maxRequestBytes: Int = 64 * 1024
  /// Seconds between heartbeats on an event stream.
  public var heartbeatSeconds: Double = 15
  /// This node's name in a cluster (`--node`): it starts every session id.
  public var node: NodeName?
  /// Seconds a session may go without a call before its encoded state is dropped: the cache
  /// speeds up sessions in use, and would only hold memory in idle ones.
  public var stateCacheIdleSeconds: Double = 10
  /// Event streams one client address may hold open at once (429 beyond); 0: no cap.
  public var maxStreamsPerClient: Int = 100
  /// Seconds an ended session is remembered, so that its token holder is told it ended (410)
  /// rather than that it does not exist.
  public var endedSessionMemorySeconds: Double = 600

  /// The keys of the app's own backend (`--backend-key-file`); nil: there are no backend calls.
  public var backendKeys: BackendKeys?
  /// Who may create sessions (`--session-creation`).
  public var sessionCreation: SessionCreationPolicy = .anyone
  /// Backend feed items kept (`--feed-retention`, at least this many, at most twice); 0: no feed.
  public var feedRetention: Int = 1_000_000

  public init() {}
}

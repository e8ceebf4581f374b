import Foundation
import Logging
public import NavJSON
public import NavStateApp
public import NavStateEngine
import NavStateTestSupport
import NavigationCore

/// NavState for a test, on one of two backends with one configuration: the router in process
/// (``RouterClient``: fast, no socket) or the whole application listening on a free port in
/// process (``LiveApp``). HTTP-rule suites run on either; only what needs a process of its own
/// (signals, crashes, the binary's command line, clusters) starts the binary
/// (``ServerProcess``).
public enum TestBackend: String, CaseIterable, Sendable, CustomStringConvertible {
  case router
  case live

  public var description: String { rawValue }
}

/// A started NavState and a client for it; a live one stops when this is released.
public final class TestApp: @unchecked Sendable {
  public let client: any TestClient
  public let backend: TestBackend
  /// The store requests reach (the router's, or the running application's).
  public let store: SessionStore?
  private let application: NavStateApplication?
  /// The store's duties (expiry, heartbeats) on timers, for the router backend, as the
  /// application runs them.
  private let duties: [RepeatingTask]

  /// The default configuration with the built-in graphs, port 0 and no data directory, changed
  /// by `configure`.
  public init(
    _ backend: TestBackend,
    _ configure: (inout NavStateApplication.Configuration) throws -> Void =
      { _ in }
  ) throws {
    var configuration = NavStateApplication.Configuration()
    configuration.port = 0
    configuration.graphs = try StartupFiles.load(files: [])
    configuration.snapshotInterval = 0
    try configure(&configuration)
    self.backend = backend
    switch backend {
    case .router:
      let store = SessionStore(
        catalog: GraphCatalog(configuration.graphs), defaultGraph: configuration.defaultGraph,
        configuration: configuration.store)
      client = RouterClient(store: store, trustedProxies: configuration.trustedProxies)
      self.store = store
      application = nil
      duties = store.duties.map { duty in
        RepeatingTask(label: duty.label, interval: duty.interval) { _ = duty.run() }
      }
    case .live:
      let application = NavStateApplication(
        configuration: configuration,
        logger: Logger(label: "navstate.test") { _ in SwiftLogNoOpLogHandler() })
      try application.start()
      guard let port = application.port else { throw TestAppFailure.notListening }
      client = HTTPTestClient(port: UInt16(port))
      self.application = application
      store = nil
      duties = []
    }
  }

  deinit {
    for duty in duties { duty.stop() }
    application?.stop()
  }

  /// The port a live backend listens on (the router listens on none: 0).
  public var port: UInt16 { application?.port.map { UInt16($0) } ?? 0 }

  /// Stops a live backend now (as its release would); answers 0, as a graceful stop does.
  @discardableResult
  public func stop() -> Int32 {
    application?.stop()
    return 0
  }

  /// The sample of the unlabelled series `name` on `/metrics`, if it is there.
  public func metric(_ name: String) throws -> Double? { try client.metric(name) }

  /// Opens a session (the default graph unless `body` says otherwise).
  public func session(_ body: JSONValue? = nil, token: String? = nil) throws -> TestSession {
    try TestSession(client, body: body, token: token)
  }
}

public enum TestAppFailure: Error {
  case notListening
  case notCreated(Int, String)
}

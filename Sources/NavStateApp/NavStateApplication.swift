import Dispatch
public import Logging
public import MicroHTTPServer
import NavStateAPI
public import NavStateEngine
public import NavStatePersistence
public import NavStatePostgres
import NavStateWire
import NavigationCore

#if canImport(Glibc)
  import Glibc
#endif

/// The whole server as one value: it owns the order things start and stop in. Starting opens
/// the data directory and restores its sessions before the HTTP server listens; stopping stops
/// the timers, then the server (in-flight requests finish), then writes the last snapshot, so no
/// request can change a session once that snapshot is taken, and last closes the journal.
///
/// The executable parses the command line into a ``Configuration`` and calls ``run()``; tests
/// can ``start()`` and ``stop()`` one in their own process.
public final class NavStateApplication {
  public struct Configuration: Sendable {
    public var host = "127.0.0.1"
    public var port: UInt16 = 8080
    public var graphs: [GraphCatalog.Version] = []
    /// The `--graph` files, read again on SIGHUP.
    public var graphFiles: [String] = []
    public var defaultGraph = "demo"
    public var store = StoreConfiguration()
    /// The HTTP server's settings; host, port and the error log are set from the rest.
    public var server = HTTPServerConfiguration()
    /// Addresses of reverse proxies whose `X-Forwarded-For` is believed.
    public var trustedProxies: Set<String> = []
    public var dataDirectory: String?
    public var fsync: Journal.SyncPolicy = .everysec
    /// Seconds between snapshots with a data directory (0: only on a graceful stop).
    public var snapshotInterval: Double = 60
    /// The `--node` name as given, to check against the data directory.
    public var node: String?
    /// `--postgres` and its settings: sessions kept in PostgreSQL (exclusive with a data
    /// directory; needs `store.node`).
    public var postgres: PostgresSettings?

    public init() {}
  }

  public let configuration: Configuration
  private let logger: Logger
  private var running: Running?

  /// What runs between ``start()`` and ``stop()``.
  private struct Running {
    var store: SessionStore
    var server: HTTPServer
    var durability: any SessionDurability
    var tasks: [RepeatingTask]
    var warnings: LogThrottle<ServerLogMessage.Kind>
  }

  /// Where sessions outlive the process: the data directory, or nowhere.
  var durability: any SessionDurability {
    if let postgres = configuration.postgres, let node = configuration.store.node {
      return PostgresDurability(settings: postgres, node: node)
    }
    guard let path = configuration.dataDirectory else { return InMemoryDurability() }
    return DataDirectoryDurability(
      path: path, fsync: configuration.fsync, snapshotInterval: configuration.snapshotInterval,
      node: configuration.node)
  }

  public init(configuration: Configuration, logger: Logger) {
    self.configuration = configuration
    self.logger = logger
  }

  /// The port it listens on once started.
  public var port: Int? { running.map { Int($0.server.port) } }

  /// Starts, prints `listening on http://HOST:PORT`, serves until SIGINT or SIGTERM, and stops.
  public func run() throws(StartupFailure) {
    ShutdownSignal.block()
    try start()
    let host = configuration.host
    let shownHost = host.contains(":") ? "[\(host)]" : host
    print("listening on http://\(shownHost):\(port ?? 0)")
    fflush(nil)
    while true {
      let signalName = ShutdownSignal.wait()
      if signalName == "SIGHUP" {
        reloadGraphFiles()
        continue
      }
      logger.info("stopping", metadata: ["signal": "\(signalName)"])
      break
    }
    stop()
  }

  /// Opens the data directory (restoring its sessions), then listens and starts the timers.
  public func start() throws(StartupFailure) {
    let configuration = configuration
    let logger = logger
    guard configuration.graphs.contains(where: { $0.graph.name == configuration.defaultGraph })
    else {
      let names = configuration.graphs.map(\.graph.name).joined(separator: ", ")
      throw StartupFailure(
        status: .usage,
        message:
          "--default-graph '\(configuration.defaultGraph)' is not a loaded graph (loaded: \(names))"
      )
    }
    let store = SessionStore(
      catalog: GraphCatalog(configuration.graphs), defaultGraph: configuration.defaultGraph,
      configuration: configuration.store)
    let service = NavStateService(
      store: store,
      clientAddresses: ClientAddressPolicy(trustedProxies: configuration.trustedProxies),
      logger: logger)
    let durability = self.durability
    try restore(store, from: durability)

    var serverConfiguration = configuration.server
    serverConfiguration.host = configuration.host
    serverConfiguration.port = configuration.port
    // Recordings to replay come many to a request (POST /v1/graphs/{name}/replay).
    let defaultLimit = serverConfiguration.maxBodyBytes
    serverConfiguration.largerBodyLimit = { method, target in
      NavStateService.isReplay(method: method, target: target)
        ? max(defaultLimit, NavStateService.maxReplayBytes) : nil
    }
    let warnings = LogThrottle<ServerLogMessage.Kind>(intervalSeconds: 10)
    let started = ContinuousClock.now
    let seconds = { @Sendable () -> Double in
      let elapsed = ContinuousClock.now - started
      return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
    serverConfiguration.errorLog = { message in
      // A client that goes away (a closed tab, a killed curl) is normal: debug, not a warning.
      guard message.kind != .clientGone else {
        logger.debug("\(message.text)")
        return
      }
      let (write, suppressed) = warnings.admit(message.kind, now: seconds())
      if suppressed > 0 { logger.warning("\(Self.summary(message.kind, suppressed))") }
      if write { logger.warning("\(message.text)") }
    }
    let server: HTTPServer
    do {
      server = try HTTPServer(configuration: serverConfiguration, handler: service.router())
    } catch {
      for problem in durability.finish(store) { logger.error("\(problem)") }
      throw StartupFailure(status: Self.status(of: error), message: error.description)
    }
    // Each module's duties, each on a timer of its own: the engine's (expiry, heartbeats), the
    // durability's (flushes, snapshots), and the log's.
    let logDuty = Duty(label: "navstate.log", interval: 1) {
      for (kind, suppressed) in warnings.expired(now: seconds()) {
        logger.warning("\(Self.summary(kind, suppressed))")
      }
      return nil
    }
    let tasks = (store.duties + durability.duties(for: store) + [logDuty]).map { duty in
      RepeatingTask(label: duty.label, interval: duty.interval) {
        if let problem = duty.run() { logger.error("\(problem)") }
      }
    }
    running = Running(
      store: store, server: server, durability: durability, tasks: tasks, warnings: warnings)
    logger.info(
      "serving",
      metadata: [
        "graphs": "\(configuration.graphs.map(\.graph.name).joined(separator: ","))",
        "threads": "\(serverConfiguration.threads)",
      ])
  }

  /// Reads every `--graph` file again and loads those whose version grew; a file that cannot be
  /// read or is not a valid graph is logged, and the version loaded before stays.
  public func reloadGraphFiles() {
    guard let store = running?.store else { return }
    for path in configuration.graphFiles {
      let version: GraphCatalog.Version
      do {
        version = try StartupFiles.read(graphFile: path)
      } catch {
        logger.error("graph not reloaded", metadata: ["file": "\(path)", "error": "\(error)"])
        continue
      }
      let graph = version.graph
      guard let newest = store.catalog.newest(graph.name), graph.version > newest.version
      else { continue }
      do {
        try store.load(version)
        logger.info(
          "graph loaded",
          metadata: ["graph": "\(graph.name)", "version": "\(graph.version)", "file": "\(path)"])
      } catch {
        logger.error("graph not reloaded", metadata: ["file": "\(path)", "error": "\(error)"])
      }
    }
  }

  /// Stops in order: the duties (a run under way ends first, so a periodic snapshot cannot
  /// overlap the last one), the server (in-flight requests finish), then the durability's last
  /// snapshot and flush, so that no request changes a session once that snapshot is taken.
  public func stop() {
    guard let running else { return }
    self.running = nil
    for task in running.tasks { task.stop() }
    running.server.shutdown()
    for problem in running.durability.finish(running.store) {
      logger.error("\(problem)")
    }
    // What was held back is still told, however little of its interval has passed.
    for (kind, suppressed) in running.warnings.expired(now: .infinity) {
      logger.warning("\(Self.summary(kind, suppressed))")
    }
    logger.info("stopped")
  }

  /// Restores the sessions `durability` kept, before the server listens.
  private func restore(_ store: SessionStore, from durability: any SessionDurability)
    throws(StartupFailure)
  {
    let started = ContinuousClock.now
    let summary: RestoreSummary
    do {
      summary = try durability.restore(into: store)
    } catch {
      let status: StartupFailure.Status =
        switch error.kind {
        case .cannotOpen: .cannotOpenInput
        case .usage: .usage
        case .badData: .badData
        }
      throw StartupFailure(status: status, message: error.message)
    }
    guard configuration.dataDirectory != nil || configuration.postgres != nil else { return }
    for warning in summary.warnings { logger.warning("\(warning)") }
    let elapsed = ContinuousClock.now - started
    logger.info(
      "sessions restored",
      metadata: [
        "sessions": "\(summary.sessions)", "journal_records": "\(summary.replayed)",
        "directory": "\(summary.source)",
        "milliseconds":
          "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
      ])
  }

  /// The line that stands for the warnings of one kind held back in one interval.
  static func summary(_ kind: ServerLogMessage.Kind, _ count: Int) -> String {
    switch kind {
    case .connectionRefused: return "\(count) more connections refused, not logged one by one"
    case .clientGone: return "\(count) more clients went away, not logged one by one"
    case .other: return "\(count) more libmicrohttpd warnings, not logged one by one"
    }
  }

  static func status(of error: HTTPServerError) -> StartupFailure.Status {
    switch error {
    case .addressInUse, .cannotBind, .cannotResolveHost: return .portUnavailable
    case .invalidConfiguration: return .usage
    case .socketFailed, .daemonStartFailed: return .systemError
    }
  }
}

extension NavStateApplication {
  /// `--import-from`: loads a data directory's sessions into PostgreSQL as `node`'s slot.
  public static func importDataDirectory(
    _ path: String, into settings: PostgresSettings, node: NodeName, configuration: Configuration
  ) throws(StartupFailure) -> Int {
    let store = SessionStore(
      catalog: GraphCatalog(configuration.graphs), defaultGraph: configuration.defaultGraph,
      configuration: configuration.store)
    do {
      return try DataDirectoryImport.run(path: path, into: settings, node: node, store: store)
    } catch {
      throw StartupFailure(
        status: error.isUsage ? .usage : .cannotOpenInput, message: error.description)
    }
  }
}

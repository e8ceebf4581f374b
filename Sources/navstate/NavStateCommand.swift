import ArgumentParser
import Dispatch
import Logging
import MicroHTTPServer
import NavStateAPI
import NavigationCore

#if canImport(Glibc)
  import Glibc
#endif

@main
struct NavStateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "navstate",
    abstract: "Serves the navigation state of app sessions over HTTP.",
    discussion: """
      With no arguments, serves the built-in 'demo' graph on http://127.0.0.1:8080.
      Once listening it prints one line, 'listening on http://HOST:PORT', to standard output.
      SIGINT and SIGTERM stop it gracefully: in-flight requests finish, then it exits 0.

      \(StartupFailure.exitStatusHelp)
      """)

  @Option(help: "Address to listen on.")
  var host = "127.0.0.1"

  @Option(help: "Port to listen on; 0 picks a free one (read it from the first line).")
  var port: UInt16 = 8080

  @Option(
    name: .customLong("graph"),
    help: ArgumentHelp(
      "A route graph JSON file to load besides the built-in ones.", valueName: "file"))
  var graphFiles: [String] = []

  @Option(help: "The graph sessions use when creation names none.")
  var defaultGraph = "demo"

  /// Worker threads with `--fsync always` when `--threads` is not given.
  static let flushingThreads = 32

  @Option(
    help:
      "HTTP worker threads (default: the number of cores; with --data-dir and --fsync always, at least 32, so that concurrent changes share their flushes)."
  )
  var threads: Int?

  @Option(help: "Sessions held at once; creation beyond answers 503.")
  var maxSessions = 100_000

  @Option(
    help: ArgumentHelp(
      "Sessions one client address may hold at once; creation beyond answers 429 (default: a tenth of --max-sessions).",
      valueName: "n"))
  var maxSessionsPerIp: Int?

  @Option(
    help: ArgumentHelp(
      "Event streams one client address may hold open at once; one more answers 429 (0: no cap).",
      valueName: "n"))
  var maxStreamsPerIp = 100

  @Option(
    help: ArgumentHelp(
      "MiB of sessions, event logs and stream buffers the server may hold; work beyond answers 503.",
      valueName: "mib"))
  var maxMemory = 1024

  @Option(help: ArgumentHelp("Idle seconds after which a session expires.", valueName: "seconds"))
  var sessionTtl: Double = 1800

  @Option(help: "Coordinators one session may hold.")
  var maxCoordinators = 256

  @Option(help: "Largest request body in bytes; larger ones answer 413.")
  var maxBodyBytes = 64 * 1024

  @Option(help: "Open connections in total.")
  var maxConnections = 4096

  @Option(
    help: "Open connections per client IP address (0: no cap); one more is closed at once.")
  var maxConnectionsPerIp = 256

  @Option(help: ArgumentHelp("Seconds an idle connection stays open.", valueName: "seconds"))
  var idleTimeout = 60

  @Option(
    help: ArgumentHelp(
      "Seconds within which a request's line and headers must arrive, however slowly; a body gets this plus a second per 4 KiB.",
      valueName: "seconds"))
  var headerTimeout: Double = 10

  @Option(
    name: .customLong("allowed-host"),
    help: ArgumentHelp(
      "A host name requests may name in Host (repeatable); others are answered 421. Default: any.",
      valueName: "name"))
  var allowedHosts: [String] = []

  @Option(
    name: .customLong("trusted-proxy"),
    help: ArgumentHelp(
      "The address of a reverse proxy in front of this server (repeatable): for requests from it, the client address that --max-sessions-per-ip counts is the last one in X-Forwarded-For. Run with --max-connections-per-ip 0 behind it and cap connections per client at the proxy.",
      valueName: "address"))
  var trustedProxies: [String] = []

  @Option(help: "Events kept per session for clients that catch up.")
  var eventBuffer = 1024

  @Option(
    help: ArgumentHelp(
      "Bytes of events kept per session, as the server keeps them (about 15 to 30 bytes an event, more with long params); the oldest go first.",
      valueName: "bytes"))
  var eventBufferBytes = 64 * 1024

  @Option(help: ArgumentHelp("Seconds between heartbeats on event streams.", valueName: "seconds"))
  var heartbeat: Double = 15

  @Option(help: "trace, debug, info, notice, warning, error or critical.")
  var logLevel: LogLevel = .info

  @Option(
    help: ArgumentHelp(
      "This server's name in a cluster: every session id starts with it and a dot (east-1.Xq...), so a proxy can route by the id. 1 to 32 lower-case letters, digits and hyphens. A --data-dir records the name it was first used with and starts under no other.",
      valueName: "name"))
  var node: String?

  @Option(
    help: ArgumentHelp(
      "Keep sessions across restarts and crashes in this directory (made if missing): a journal of every accepted change, written before it is answered, and a snapshot of every live session on a graceful stop and every --snapshot-interval seconds; both are read back at start. Without it, sessions live in memory only.",
      valueName: "directory"))
  var dataDir: String?

  @Option(
    help: ArgumentHelp(
      "With --data-dir, when the journal is flushed to disk: always (before each answer), everysec (once a second: a crash loses at most the last second) or no (left to the system).",
      valueName: "policy"))
  var fsync: FsyncPolicy = .everysec

  @Option(
    help: ArgumentHelp(
      "Seconds between snapshots with --data-dir (0: only on a graceful stop).",
      valueName: "seconds"))
  var snapshotInterval: Double = 60

  func validate() throws {
    guard (threads ?? 1) >= 1 else { throw ValidationError("--threads must be at least 1") }
    guard maxSessions >= 1 else { throw ValidationError("--max-sessions must be at least 1") }
    guard sessionTtl > 0 else { throw ValidationError("--session-ttl must be more than 0") }
    guard maxCoordinators >= 1 else {
      throw ValidationError("--max-coordinators must be at least 1")
    }
    guard maxBodyBytes >= 1, maxBodyBytes <= 1 << 30 else {
      throw ValidationError("--max-body-bytes must be between 1 and 1073741824")
    }
    guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
    guard maxConnectionsPerIp >= 0 else {
      throw ValidationError("--max-connections-per-ip must be 0 or more")
    }
    guard idleTimeout >= 1 else { throw ValidationError("--idle-timeout must be at least 1") }
    guard headerTimeout > 0, headerTimeout <= 86_400 else {
      throw ValidationError("--header-timeout must be more than 0 and at most 86400")
    }
    guard heartbeat > 0 else { throw ValidationError("--heartbeat must be more than 0") }
    guard eventBuffer >= 1 else { throw ValidationError("--event-buffer must be at least 1") }
    guard eventBufferBytes >= 1024, eventBufferBytes <= 1 << 30 else {
      throw ValidationError("--event-buffer-bytes must be between 1024 and 1073741824")
    }
    guard maxStreamsPerIp >= 0 else {
      throw ValidationError("--max-streams-per-ip must be 0 (no cap) or more")
    }
    guard (maxSessionsPerIp ?? 1) >= 1 else {
      throw ValidationError("--max-sessions-per-ip must be at least 1")
    }
    guard node.map({ NodeName($0) != nil }) ?? true else {
      throw ValidationError(
        "--node must be 1 to 32 lower-case letters, digits and hyphens, starting with a letter or digit"
      )
    }
    if let address = trustedProxies.first(where: { canonicalIPAddress($0) == nil }) {
      throw ValidationError("--trusted-proxy '\(address)' is not an IPv4 or IPv6 address")
    }
    guard snapshotInterval >= 0 else {
      throw ValidationError("--snapshot-interval must be 0 or more")
    }
    guard dataDir.map({ !$0.isEmpty }) ?? true else {
      throw ValidationError("--data-dir must name a directory")
    }
    guard maxMemory >= 16, maxMemory <= 1 << 30 else {
      throw ValidationError("--max-memory must be at least 16 (MiB)")
    }
  }

  func run() throws {
    do {
      try serve()
    } catch {
      // One line, no usage text: the options were fine, the world was not.
      error.writeToStandardError()
      throw ExitCode(error.status.rawValue)
    }
  }

  private func serve() throws(StartupFailure) {
    ShutdownSignal.block()
    let level = logLevel.level
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    let logger = Logger(label: "navstate")

    let graphs = try loadGraphs()
    guard graphs.contains(where: { $0.name == defaultGraph }) else {
      let names = graphs.map(\.name).joined(separator: ", ")
      throw StartupFailure(
        status: .usage,
        message: "--default-graph '\(defaultGraph)' is not a loaded graph (loaded: \(names))")
    }
    var storeConfiguration = StoreConfiguration()
    storeConfiguration.maxSessions = maxSessions
    storeConfiguration.sessionTTLSeconds = sessionTtl
    storeConfiguration.limits = NavigationLimits(maxCoordinators: maxCoordinators)
    storeConfiguration.eventBufferSize = eventBuffer
    storeConfiguration.eventBufferBytes = eventBufferBytes
    storeConfiguration.maxSessionsPerClient = maxSessionsPerIp ?? max(1, maxSessions / 10)
    storeConfiguration.maxMemoryBytes = maxMemory * 1024 * 1024
    storeConfiguration.maxRequestBytes = maxBodyBytes
    storeConfiguration.heartbeatSeconds = heartbeat
    storeConfiguration.maxStreamsPerClient = maxStreamsPerIp
    storeConfiguration.node = node.flatMap(NodeName.init)
    let store = SessionStore(
      graphs: graphs, defaultGraph: defaultGraph, configuration: storeConfiguration)
    let service = NavStateService(
      store: store,
      clientAddresses: ClientAddressPolicy(
        trustedProxies: Set(trustedProxies.compactMap { canonicalIPAddress($0) })),
      logger: logger)
    let dataDirectory = try openDataDirectory(into: store, logger: logger)

    var serverConfiguration = HTTPServerConfiguration()
    serverConfiguration.host = host
    serverConfiguration.port = port
    if let threads {
      serverConfiguration.threads = threads
    } else if dataDir != nil, fsync == .always {
      // A thread waits while its change is flushed; the changes of the others that arrive
      // meanwhile share the next flush (group commit), so more threads make larger groups.
      // Measured (Benchmarks/journal, 2 cores): 0.08x of no journal with 2 threads, 0.31x with 32.
      serverConfiguration.threads = max(serverConfiguration.threads, Self.flushingThreads)
    }
    serverConfiguration.maxBodyBytes = maxBodyBytes
    serverConfiguration.connectionLimit = maxConnections
    serverConfiguration.connectionsPerIP = maxConnectionsPerIp
    serverConfiguration.connectionTimeoutSeconds = idleTimeout
    serverConfiguration.headerTimeoutSeconds = headerTimeout
    serverConfiguration.allowedHosts = allowedHosts
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
    let logFlush = RepeatingTask(label: "navstate.log", interval: 1) {
      for (kind, suppressed) in warnings.expired(now: seconds()) {
        logger.warning("\(Self.summary(kind, suppressed))")
      }
    }

    let server: HTTPServer
    do {
      server = try HTTPServer(configuration: serverConfiguration, handler: service.router())
    } catch {
      throw StartupFailure(status: Self.status(of: error), message: error.description)
    }
    let sweeper = RepeatingTask(
      label: "navstate.expiry", interval: min(1, max(0.05, sessionTtl / 4))
    ) {
      let now = Timestamp.now()
      store.expireIdle(now: now)
      store.dropIdleCaches(now: now)
    }
    // Each stream's heartbeat is due `heartbeat` seconds after its last; the task looks for
    // due ones a few times per interval, so none is more than a quarter interval late.
    let heartbeats = RepeatingTask(
      label: "navstate.heartbeat", interval: min(1, max(0.05, heartbeat / 4))
    ) {
      store.sendHeartbeats(now: .now())
    }
    let journalFlush = store.journal.flatMap { journal in
      journal.policy == .everysec
        ? RepeatingTask(label: "navstate.fsync", interval: 1) { journal.syncIfWritten() } : nil
    }
    let snapshots = dataDirectory.flatMap { directory in
      snapshotInterval > 0
        ? RepeatingTask(label: "navstate.snapshot", interval: snapshotInterval) {
          Self.saveSnapshot(store, to: directory, logger: logger)
        } : nil
    }
    let shownHost = host.contains(":") ? "[\(host)]" : host
    print("listening on http://\(shownHost):\(server.port)")
    fflush(nil)
    logger.info(
      "serving",
      metadata: [
        "graphs": "\(graphs.map(\.name).joined(separator: ","))",
        "threads": "\(serverConfiguration.threads)",
      ])

    let signalName = ShutdownSignal.wait()
    logger.info("stopping", metadata: ["signal": "\(signalName)"])
    sweeper.stop()
    heartbeats.stop()
    logFlush.stop()
    snapshots?.stop()
    server.shutdown()
    // After the server: no request changes a session once the snapshot is taken.
    if let dataDirectory { Self.saveSnapshot(store, to: dataDirectory, logger: logger) }
    journalFlush?.stop()
    store.journal?.finish()
    // What was held back is still told, however little of its interval has passed.
    for (kind, suppressed) in warnings.expired(now: .infinity) {
      logger.warning("\(Self.summary(kind, suppressed))")
    }
    logger.info("stopped")
  }

  /// Opens `--data-dir` and restores the sessions its snapshot holds; nil without the option.
  private func openDataDirectory(into store: SessionStore, logger: Logger)
    throws(StartupFailure) -> DataDirectory?
  {
    guard let dataDir else { return nil }
    let directory: DataDirectory
    let claim: DataDirectory.NodeClaim
    do {
      directory = try DataDirectory(path: dataDir)
      claim = try directory.claim(node: node)
    } catch {
      throw StartupFailure(status: .cannotOpenInput, message: error.description)
    }
    if case .other(let recorded) = claim {
      let started = recorded.map { "--node \($0)" } ?? "no --node"
      let restart = recorded.map { "start it with --node \($0)" } ?? "start it without --node"
      throw StartupFailure(
        status: .usage,
        message:
          "the data directory \(dataDir) holds the sessions of a server started with \(started) (every id it issued says so); \(restart), or give this node a directory of its own"
      )
    }
    let started = ContinuousClock.now
    let loaded: DataDirectory.Loaded
    do {
      loaded = try directory.load(into: store, journal: fsync.policy)
    } catch {
      throw StartupFailure(status: .badData, message: error.description)
    }
    if let warning = loaded.warning { logger.warning("\(warning)") }
    let elapsed = ContinuousClock.now - started
    logger.info(
      "sessions restored",
      metadata: [
        "sessions": "\(loaded.sessions)", "journal_records": "\(loaded.replayed)",
        "directory": "\(dataDir)",
        "milliseconds":
          "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
      ])
    return directory
  }

  static func saveSnapshot(_ store: SessionStore, to directory: DataDirectory, logger: Logger) {
    do {
      let count = try directory.saveSnapshot(of: store)
      logger.debug("snapshot written", metadata: ["sessions": "\(count)"])
    } catch {
      logger.error("snapshot failed", metadata: ["error": "\(error.description)"])
    }
  }

  /// The values of `--fsync`.
  enum FsyncPolicy: String, ExpressibleByArgument, CaseIterable {
    case always, everysec, no

    var policy: Journal.SyncPolicy {
      switch self {
      case .always: .always
      case .everysec: .everysec
      case .no: .no
      }
    }
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

  func loadGraphs() throws(StartupFailure) -> [RouteGraph] {
    var graphs: [RouteGraph]
    do {
      graphs = try BuiltInGraphs.load()
    } catch {
      throw StartupFailure(status: .cannotOpenInput, message: "\(error)")
    }
    for path in graphFiles {
      let bytes = try readFile(path)
      let graph: RouteGraph
      do {
        graph = try RouteGraph.decode(bytes, source: path)
      } catch {
        throw StartupFailure(status: .badData, message: "--graph \(error)")
      }
      guard !graphs.contains(where: { $0.name == graph.name }) else {
        throw StartupFailure(
          status: .badData,
          message: "--graph \(path): a graph named '\(graph.name)' is already loaded")
      }
      graphs.append(graph)
    }
    return graphs
  }

  /// The whole file, or the system's reason why not (no such file, permission denied, a folder).
  func readFile(_ path: String) throws(StartupFailure) -> [UInt8] {
    func failure(_ code: Int32) -> StartupFailure {
      StartupFailure(
        status: .cannotOpenInput,
        message: "--graph \(path): cannot read the file: \(StartupFailure.reason(code))")
    }
    guard let file = fopen(path, "rb") else { throw failure(errno) }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = fread(&chunk, 1, chunk.count, file)
      if count > 0 { bytes += chunk[0..<count] }
      if count < chunk.count { break }
    }
    // Reading a folder opens fine and fails here with EISDIR.
    guard ferror(file) == 0 else { throw failure(errno) }
    return bytes
  }
}

/// The log levels of swift-log, as the command line spells them.
enum LogLevel: String, CaseIterable, ExpressibleByArgument {
  case trace, debug, info, notice, warning, error, critical

  var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}

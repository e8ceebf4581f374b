import ArgumentParser
import Dispatch
import Logging
import MicroHTTPServer
import NavStateAPI
import NavStateApp
import NavStateEngine
import NavStatePersistence
import NavStatePostgres
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
      "HTTP worker threads (default: the number of cores; with --data-dir and --fsync always, or with --postgres, at least 32, so that concurrent changes share their flushes or commits)."
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
      "Bytes each connection holds for a request's line and header fields (larger ones: 431). Cleared before every request on a kept-alive connection, so a larger value costs time on every request.",
      valueName: "bytes"))
  var maxHeaderBytes = HTTPServerConfiguration().memoryLimitPerConnection

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

  @Option(
    help: ArgumentHelp(
      "Versions of each session its history keeps (GET .../history, ?at=V, restore); the oldest go first, and the memory they take counts in --max-memory.",
      valueName: "versions"))
  var historyVersions = 1000

  @Option(
    help: ArgumentHelp(
      "Items the backend feed keeps (GET /v1/feed, funnels): at least this many, at most twice; their memory counts in --max-memory. 0 turns the feed off.",
      valueName: "items"))
  var feedRetention = 1_000_000

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

  @Option(
    help: ArgumentHelp(
      "Keep sessions in PostgreSQL 15 or later instead of a --data-dir: postgres://user[:password]@host[:port]/database, or host=... port=... keywords. Every change is committed there before it is answered; sessions stay in memory, and each node holds the sessions it made (its slot) under a lease; when a node dies, another takes its slot over once the lease runs out. Needs --node. The tables are made at first start.",
      valueName: "url"))
  var postgres: String?

  @Option(
    help: ArgumentHelp(
      "With --postgres, seconds a commit (or a connection) may take; a change not committed in time is refused with 503 store_unavailable.",
      valueName: "seconds"))
  var postgresTimeout: Double = 2

  @Option(
    help: ArgumentHelp(
      "With --postgres, seconds a node's lease on its sessions lasts unless renewed (renewed four times per lease): how long a dead node's sessions wait before another node serves them.",
      valueName: "seconds"))
  var leaseSeconds: Double = 10

  @Option(
    help: ArgumentHelp(
      "With --postgres, the shards this node is home to: numbers and ranges from 0 to 63 (0-20,42). A session belongs to the shard its id's first character names (A is 0, _ is 63); the node makes its sessions in its shards, with ids that carry no node name, and a proxy routes each id by its first character. Give every shard to exactly one node. Without it, ids begin with the node's name.",
      valueName: "list"))
  var shards: String?

  @Option(
    help: ArgumentHelp(
      "With --postgres and --node: load the sessions of this --data-dir directory (written by a server with the same --node) into PostgreSQL, then exit without serving. Stop the server that uses the directory first.",
      valueName: "directory"))
  var importFrom: String?

  @Option(
    help: ArgumentHelp(
      "A file of the app's backend keys, one per line (at least 32 printable ASCII characters, no spaces, not the shape of a session token). A request with one as its bearer token is a backend call: it may call any session, set a session's context and load graphs. Without it there are no backend calls.",
      valueName: "file"))
  var backendKeyFile: String?

  @Option(
    help: ArgumentHelp(
      "Who may create sessions: anyone, or backend (a creation without a backend key answers 401).",
      valueName: "who"))
  var sessionCreation: SessionCreation = .anyone

  func validate() throws {
    if sessionCreation == .backend, backendKeyFile == nil {
      throw ValidationError("--session-creation backend needs --backend-key-file")
    }
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
    guard (8192...1_048_576).contains(maxHeaderBytes) else {
      throw ValidationError("--max-header-bytes must be between 8192 and 1048576")
    }
    guard maxConnectionsPerIp >= 0 else {
      throw ValidationError("--max-connections-per-ip must be 0 or more")
    }
    guard idleTimeout >= 1 else { throw ValidationError("--idle-timeout must be at least 1") }
    guard headerTimeout > 0, headerTimeout <= 86_400 else {
      throw ValidationError("--header-timeout must be more than 0 and at most 86400")
    }
    guard heartbeat > 0 else { throw ValidationError("--heartbeat must be more than 0") }
    guard eventBuffer >= 1 else { throw ValidationError("--event-buffer must be at least 1") }
    guard feedRetention >= 0, feedRetention <= 100_000_000 else {
      throw ValidationError("--feed-retention must be between 0 and 100000000")
    }
    guard historyVersions >= 1, historyVersions <= 1_000_000 else {
      throw ValidationError("--history-versions must be between 1 and 1000000")
    }
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
    if postgres != nil {
      guard dataDir == nil else {
        throw ValidationError(
          "--postgres and --data-dir are exclusive: sessions live in one place (load a directory into PostgreSQL with --import-from)"
        )
      }
      guard node != nil else {
        throw ValidationError(
          "--postgres needs --node: each node's sessions are a slot named after it")
      }
      guard postgresTimeout > 0, postgresTimeout <= 3600 else {
        throw ValidationError("--postgres-timeout must be more than 0 and at most 3600")
      }
      guard leaseSeconds >= 1, leaseSeconds <= 3600 else {
        throw ValidationError("--lease-seconds must be from 1 to 3600")
      }
      if let shards, PostgresSettings.shards(shards) == nil {
        throw ValidationError(
          "--shards lists numbers and ranges from 0 to 63, separated by commas (0-20,42)")
      }
    } else if importFrom != nil {
      throw ValidationError("--import-from needs --postgres and --node")
    } else if shards != nil {
      throw ValidationError("--shards needs --postgres: shards are kept in PostgreSQL")
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
    let level = logLevel.level
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    var configuration = NavStateApplication.Configuration()
    configuration.host = host
    configuration.port = port
    configuration.graphs = try StartupFiles.load(files: graphFiles)
    configuration.graphFiles = graphFiles
    configuration.defaultGraph = defaultGraph
    configuration.store.maxSessions = maxSessions
    configuration.store.sessionTTLSeconds = sessionTtl
    configuration.store.limits = NavigationLimits(maxCoordinators: maxCoordinators)
    configuration.store.eventBufferSize = eventBuffer
    configuration.store.eventBufferBytes = eventBufferBytes
    configuration.store.historyVersions = historyVersions
    configuration.store.feedRetention = feedRetention
    configuration.store.maxSessionsPerClient = maxSessionsPerIp ?? max(1, maxSessions / 10)
    configuration.store.maxMemoryBytes = maxMemory * 1024 * 1024
    configuration.store.maxRequestBytes = maxBodyBytes
    configuration.store.heartbeatSeconds = heartbeat
    configuration.store.maxStreamsPerClient = maxStreamsPerIp
    configuration.store.node = node.flatMap(NodeName.init)
    configuration.node = node
    configuration.trustedProxies = Set(trustedProxies.compactMap { canonicalIPAddress($0) })
    configuration.dataDirectory = dataDir
    configuration.fsync = fsync.policy
    configuration.snapshotInterval = snapshotInterval
    configuration.postgres = postgres.map {
      PostgresSettings(
        url: $0, timeout: postgresTimeout, leaseSeconds: leaseSeconds,
        shards: shards.flatMap(PostgresSettings.shards) ?? [])
    }
    if let backendKeyFile {
      configuration.store.backendKeys = try StartupFiles.backendKeys(file: backendKeyFile)
    }
    configuration.store.sessionCreation = sessionCreation.policy
    if let threads {
      configuration.server.threads = threads
    } else if (dataDir != nil && fsync == .always) || postgres != nil {
      // A thread waits while its change is flushed; the changes of the others that arrive
      // meanwhile share the next flush (group commit), so more threads make larger groups.
      // Measured (Benchmarks/journal, 2 cores): 0.08x of no journal with 2 threads, 0.31x with 32.
      configuration.server.threads = max(configuration.server.threads, Self.flushingThreads)
    }
    configuration.server.maxBodyBytes = maxBodyBytes
    configuration.server.connectionLimit = maxConnections
    configuration.server.connectionsPerIP = maxConnectionsPerIp
    configuration.server.memoryLimitPerConnection = maxHeaderBytes
    configuration.server.connectionTimeoutSeconds = idleTimeout
    configuration.server.headerTimeoutSeconds = headerTimeout
    configuration.server.allowedHosts = allowedHosts
    if let importFrom, let postgres = configuration.postgres, let node = configuration.store.node {
      let count = try NavStateApplication.importDataDirectory(
        importFrom, into: postgres, node: node, configuration: configuration)
      print("imported \(count) sessions of slot \(node.name) from \(importFrom)")
      return
    }
    let application = NavStateApplication(
      configuration: configuration, logger: Logger(label: "navstate"))
    try application.run()
  }

  /// The values of `--session-creation`.
  enum SessionCreation: String, ExpressibleByArgument, CaseIterable {
    case anyone, backend

    var policy: SessionCreationPolicy { self == .anyone ? .anyone : .backend }
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
}

/// The log levels of swift-log, as the command line spells them.
enum LogLevel: String, CaseIterable, ExpressibleByArgument {
  case trace, debug, info, notice, warning, error, critical

  var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}

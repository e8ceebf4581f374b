import Foundation
import NavStateTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A throwaway PostgreSQL cluster for one test: initdb into a temporary folder, the postmaster
/// on a free loopback port (no other address, its socket in the folder), run as the `postgres`
/// user when the tests run as root. The postmaster is a child of the test process with a
/// parent-death SIGTERM, in a process group of its own, and is stopped by `stop()` or when this
/// value goes away, whatever happens; the folder is removed then.
final class PostgresServer: @unchecked Sendable {
  let folder: String
  let port: UInt16
  private var process: Process?
  private let settings: [String]

  /// The newest installed PostgreSQL 15 or later (Debian's layout).
  static var binaries: String? {
    let root = "/usr/lib/postgresql"
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    guard let newest = versions.compactMap({ Int($0) }).filter({ $0 >= 15 }).max() else {
      return nil
    }
    let bin = "\(root)/\(newest)/bin"
    return FileManager.default.isExecutableFile(atPath: "\(bin)/postgres") ? bin : nil
  }

  /// Runs where PostgreSQL is installed, and wherever NAVSTATE_REQUIRE_POSTGRES is set (the test
  /// command sets it, so CI fails rather than skips when it is missing).
  static var canRun: Bool {
    binaries != nil || ProcessInfo.processInfo.environment["NAVSTATE_REQUIRE_POSTGRES"] != nil
  }

  private static var isRoot: Bool { getuid() == 0 }

  var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

  /// A new cluster; `settings` are `-c name=value` pairs for the postmaster. `dataFrom`: a base
  /// backup of that server instead of initdb (a standby).
  init(settings: [String] = [], standbyOf primary: PostgresServer? = nil) throws {
    guard let bin = Self.binaries else { throw PostgresError.notInstalled }
    folder = NSTemporaryDirectory() + "navstate-pg-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    if Self.isRoot { _ = try Self.run(["/usr/bin/chown", "postgres", folder]) }
    port = try LocalCluster.freePort()
    self.settings = settings
    if let primary {
      try Self.runAsPostgres([
        "\(bin)/pg_basebackup", "-D", "\(folder)/data", "-R", "-X", "stream", "-h", "127.0.0.1",
        "-p", "\(primary.port)", "-U", "postgres",
      ])
    } else {
      try Self.runAsPostgres([
        "\(bin)/initdb", "-D", "\(folder)/data", "-A", "trust", "-U", "postgres", "--no-sync",
        "-E", "UTF8",
      ])
    }
    try start()
  }

  /// Starts the postmaster and waits until it accepts connections.
  func start() throws {
    guard let bin = Self.binaries else { throw PostgresError.notInstalled }
    let process = Process()
    // One setpriv for both: a change of user clears the parent-death signal. SIGKILL, which
    // ends even a paused postmaster (its backends then exit when they see it gone).
    var command =
      Self.isRoot
      ? [
        "/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups",
        "--pdeathsig", "KILL", "--",
      ] : ChildProcesses.deathSignalPrefix("KILL")
    command += [
      "\(bin)/postgres", "-D", "\(folder)/data", "-c", "listen_addresses=127.0.0.1", "-p",
      "\(port)", "-k", folder, "-c", "fsync=off", "-c", "max_connections=200",
    ]
    for setting in settings { command += ["-c", setting] }
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    let log = FileHandle(forWritingAtPath: "/dev/null")
    process.standardOutput = log
    let errorLog = "\(folder)/postgres.log"
    _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
    process.standardError = FileHandle(forWritingAtPath: errorLog)
    try ChildProcesses.onSpawningThread { try process.run() }
    self.process = process
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
      if !process.isRunning { throw PostgresError.didNotStart(self.log) }
      if (try? query("SELECT 1")) == "1" { return }
      usleep(50_000)
    }
    throw PostgresError.didNotStart(self.log)
  }

  var log: String { (try? String(contentsOfFile: "\(folder)/postgres.log", encoding: .utf8)) ?? "" }

  /// The postmaster's process id (its group holds every backend).
  var pid: pid_t? { process.map { $0.processIdentifier } }

  /// Runs `sql` with psql and returns its output (unaligned, no headers).
  @discardableResult
  func query(_ sql: String) throws -> String {
    guard let bin = Self.binaries else { throw PostgresError.notInstalled }
    return try Self.run([
      "\(bin)/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql,
    ]).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The postmaster and every process it started (backends, writers, WAL senders).
  private var processes: [pid_t] {
    guard let pid else { return [] }
    var all = [pid]
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    for entry in entries {
      guard let child = pid_t(entry),
        let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
      else { continue }
      let fields = stat[stat.index(after: end)...].split(separator: " ")
      if fields.count > 1, pid_t(fields[1]) == pid { all.append(child) }
    }
    return all
  }

  /// SIGSTOP (or SIGCONT) to the postmaster and every backend: a database that hangs.
  func pause() { for process in processes { kill(process, SIGSTOP) } }
  func resume() { for process in processes { kill(process, SIGCONT) } }

  /// SIGKILL to every process of the cluster: a crash of its machine, as far as clients see.
  func crash() {
    guard let process else { return }
    for member in processes { kill(member, SIGKILL) }
    process.waitUntilExit()
    self.process = nil
  }

  /// Promotes a standby to primary and waits until it accepts writes.
  func promote() throws {
    try query("SELECT pg_promote(true, 60)")
  }

  /// Stops the cluster (fast shutdown, then SIGKILL after 10 s) and removes its folder.
  func stop() {
    if let process, let pid {
      resume()
      kill(pid, SIGINT)
      let deadline = Date().addingTimeInterval(10)
      while process.isRunning, Date() < deadline { usleep(20_000) }
      if process.isRunning { for member in processes { kill(member, SIGKILL) } }
      process.waitUntilExit()
    }
    process = nil
    try? FileManager.default.removeItem(atPath: folder)
  }

  deinit { stop() }

  private static func runAsPostgres(_ command: [String]) throws {
    let prefix =
      isRoot
      ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"] : []
    try run(prefix + command)
  }

  /// Runs a command to its end (killed after 120 s); its standard output, or an error with its
  /// output when it fails.
  @discardableResult
  private static func run(_ command: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try ChildProcesses.run(process, killAfter: 120)
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
      throw PostgresError.commandFailed(command.joined(separator: " "), text)
    }
    return text
  }

  enum PostgresError: Error, CustomStringConvertible {
    case notInstalled
    case didNotStart(String)
    case commandFailed(String, String)

    var description: String {
      switch self {
      case .notInstalled: "PostgreSQL 15 or later is not installed (apt-get install -y postgresql)"
      case .didNotStart(let log): "PostgreSQL did not start: \(log.suffix(2000))"
      case .commandFailed(let command, let output): "\(command) failed: \(output.suffix(2000))"
      }
    }
  }
}

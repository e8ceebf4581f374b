import Foundation
import NavStateTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `deploy/local-cluster`: nodes n1...nN and nginx on a free loopback port, for one test.
final class LocalCluster: @unchecked Sendable {
  let port: UInt16
  let folder: String
  let nodeCount: Int
  /// The script's process id.
  private let pid: pid_t
  private let output: Int32
  private var exitStatus: Int32?

  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../deploy/local-cluster").standardized.path

  static var nginxInstalled: Bool {
    let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
    return (paths.map(String.init) + ["/usr/sbin"]).contains {
      FileManager.default.isExecutableFile(atPath: "\($0)/nginx")
    }
  }

  /// Runs where nginx is, and wherever NAVSTATE_REQUIRE_NGINX is set (Tests/run-all sets it,
  /// so CI fails rather than skips when nginx is missing).
  static var canRun: Bool {
    nginxInstalled || ProcessInfo.processInfo.environment["NAVSTATE_REQUIRE_NGINX"] != nil
  }

  /// Starts the cluster, in `folder` when given (a second start on the folder of an earlier
  /// one), and waits for its `listening on` line.
  /// With `postgres`, the nodes keep their sessions in that database (`--postgres URL`).
  init(nodes: Int, folder: String? = nil, postgres: String? = nil, options: [String] = []) throws {
    nodeCount = nodes
    self.folder = folder ?? NSTemporaryDirectory() + "navstate-cluster-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: self.folder, withIntermediateDirectories: true)
    let port = try Self.freePort()
    self.port = port
    var environment = ProcessInfo.processInfo.environment
    environment["NAVSTATE_CLUSTER_DIR"] = self.folder
    environment["NAVSTATE_BINARY"] = ServerProcess.binary.path
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw ClusterError.spawn(errno) }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    output = ends[0]
    let logPath = "\(self.folder)/local-cluster.log"
    let writeEnd = ends[1]
    do {
      // With a parent-death SIGTERM (ChildProcesses): if the test process ends without stopping
      // it, the script stops its nodes and nginx all the same.
      pid = try ChildProcesses.onSpawningThread {
        try Self.spawn(
          arguments: ["\(nodes)", "\(port)"] + (postgres.map { ["--postgres", $0] } ?? [])
            + ["--", "--log-level", "warning"] + options,
          environment: environment, output: writeEnd, log: logPath)
      }
    } catch {
      close(ends[0])
      close(ends[1])
      throw error
    }
    close(ends[1])
    do {
      let line = try Self.readLine(from: output, timeout: 120)
      guard line == "listening on http://127.0.0.1:\(port)" else {
        throw ClusterError.noOutput(line + "\n" + log())
      }
    } catch {
      stop()
      throw error
    }
  }

  /// posix_spawn rather than Foundation's Process: Process hands on the test runner's signal
  /// mask, in which SIGTERM and SIGHUP are blocked, so the script's traps would never run.
  private static func spawn(
    arguments: [String], environment: [String: String], output: Int32, log: String
  ) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, output, 1)
    posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var everySignal = sigset_t()
    sigfillset(&everySignal)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &everySignal)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let command = ChildProcesses.deathSignalPrefix("TERM") + [script] + arguments
    let argv = command.map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for string in argv + envp { free(string) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
    guard result == 0 else { throw ClusterError.spawn(result) }
    return pid
  }

  /// Reaps the script if it has exited.
  private var isRunning: Bool {
    if exitStatus != nil { return false }
    var status: Int32 = 0
    guard waitpid(pid, &status, WNOHANG) == pid else { return true }
    // Exited: its code; killed by a signal: minus the signal.
    exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
    return false
  }

  var client: HTTPTestClient { HTTPTestClient(port: port) }

  func pid(ofNode name: String) throws -> pid_t {
    let text = try String(contentsOfFile: "\(folder)/nodes/\(name)/pid", encoding: .utf8)
    guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
      throw ClusterError.noPID(name)
    }
    return pid
  }

  /// The port a node listens on, to talk to it without the proxy.
  func port(ofNode name: String) throws -> UInt16 {
    let text = try String(contentsOfFile: "\(folder)/nodes/\(name)/port", encoding: .utf8)
    guard let port = UInt16(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
      throw ClusterError.noPID(name)
    }
    return port
  }

  /// SIGKILL to one node: a crash, as the proxy sees it.
  func crash(node name: String) throws {
    let pid = try pid(ofNode: name)
    let port = try port(ofNode: name)
    kill(pid, SIGKILL)
    // Gone, not merely signalled: its listening socket is closed, which happens when its last
    // thread has exited (its main thread shows as a zombie before that, and until then the
    // kernel still accepts connections for it).
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline, Self.accepts(port: port) { usleep(10_000) }
  }

  /// Whether a connection to the port on 127.0.0.1 is accepted (it is closed at once).
  private static func accepts(port: UInt16) -> Bool {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// SIGSTOP to one node: a hung process, as the proxy sees it (the kernel still accepts
  /// connections into its listen backlog, and nothing answers them). Returns once every thread
  /// of it has stopped (a signal stops each thread on its way), with its pid; resume it with
  /// `resume(node:)` in a `defer`. `stop()` resumes every node as well.
  @discardableResult
  func pause(node name: String) throws -> pid_t {
    let pid = try pid(ofNode: name)
    kill(pid, SIGSTOP)
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline, !Self.isStopped(pid) { usleep(5_000) }
    return pid
  }

  /// Whether every thread of the process is stopped (state T in /proc/PID/task/TID/stat).
  private static func isStopped(_ pid: pid_t) -> Bool {
    guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
    else { return false }
    return threads.allSatisfy { thread in
      guard
        let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
      else { return false }
      return stat[stat.index(after: end)...].hasPrefix(" T ")
    }
  }

  /// SIGCONT to one node stopped by `pause(node:)`.
  func resume(node name: String) throws {
    kill(try pid(ofNode: name), SIGCONT)
  }

  /// SIGHUP: the script starts again every node that is not running.
  func restartStoppedNodes() {
    kill(pid, SIGHUP)
  }

  /// SIGTERM to the script, which stops every node and nginx; returns its exit status. A node
  /// left stopped (SIGSTOP) is resumed first, since it could not act on the script's SIGTERM.
  /// If the script has not exited after `timeout`, it is killed, and so are the nodes and nginx
  /// it started, each by the pid it wrote.
  @discardableResult
  func stop(timeout: Double = 30) -> Int32 {
    guard isRunning else { return exitStatus ?? -1 }
    for node in 0..<nodeCount {
      if let pid = ownPID(at: "nodes/n\(node + 1)/pid") { kill(pid, SIGCONT) }
    }
    kill(pid, SIGTERM)
    let deadline = Date().addingTimeInterval(timeout)
    while isRunning, Date() < deadline { usleep(10_000) }
    if isRunning {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
      exitStatus = -SIGKILL
      for node in 0..<nodeCount {
        if let pid = ownPID(at: "nodes/n\(node + 1)/pid") { kill(pid, SIGKILL) }
      }
      // SIGTERM, not SIGKILL: nginx's master stops its workers on its way out.
      if let pid = ownPID(at: "nginx/logs/nginx.pid") { kill(pid, SIGTERM) }
    }
    return exitStatus ?? -1
  }

  /// The pid in a file under the folder, if that process still runs with this folder's name on
  /// its command line (so that a pid reused by another process is left alone).
  private func ownPID(at file: String) -> pid_t? {
    guard let text = try? String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8),
      let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0,
      let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
      String(decoding: command, as: UTF8.self).contains(
        URL(fileURLWithPath: folder).lastPathComponent)
    else { return nil }
    return pid
  }

  /// What the script wrote to standard error.
  func log() -> String {
    (try? String(contentsOfFile: "\(folder)/local-cluster.log", encoding: .utf8)) ?? ""
  }

  func removeFiles() {
    try? FileManager.default.removeItem(atPath: folder)
  }

  deinit {
    stop()
    close(output)
  }

  enum ClusterError: Error {
    case noOutput(String)
    case noPID(String)
    case spawn(Int32)
  }

  static func freePort() throws -> UInt16 {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
      }
    }
    guard bound else { throw ClusterError.noOutput("no free port") }
    return UInt16(bigEndian: address.sin_port)
  }

  private static func readLine(from fd: Int32, timeout: Double) throws -> String {
    var bytes: [UInt8] = []
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 100) > 0 else { continue }
      var byte: UInt8 = 0
      guard read(fd, &byte, 1) == 1 else {
        throw ClusterError.noOutput(String(decoding: bytes, as: UTF8.self))
      }
      if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
    throw ClusterError.noOutput("nothing within \(timeout) s")
  }
}

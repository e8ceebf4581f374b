public import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Every process a test starts (servers, the cluster script, the README walkthrough) is started
/// here, so that none outlives the test process, whatever ends it: a crash, a SIGKILL, or the
/// timeout that Tests/run-all puts around `swift test`.
///
/// Each child is started through `setpriv --pdeathsig`, which execs it (so its pid is the
/// child's own) with a parent-death signal. Linux sends that signal when the *thread* that
/// started the child ends, not the process: a child started from one of the pool's threads,
/// which end when idle for a few seconds, would be killed in the middle of its test. So every
/// child is started from one thread that lives as long as the test process.
public enum ChildProcesses {
  /// `setpriv --pdeathsig SIGNAL --`, to put before a command; empty where setpriv is missing
  /// (util-linux has it on every Debian and Ubuntu).
  public static func deathSignalPrefix(_ signal: String = "KILL") -> [String] {
    let setpriv = "/usr/bin/setpriv"
    guard FileManager.default.isExecutableFile(atPath: setpriv) else { return [] }
    return [setpriv, "--pdeathsig", signal, "--"]
  }

  /// Starts `process`, with the parent-death signal SIGKILL, from the long-lived thread. With
  /// `killAfter`, its process group (Foundation gives each child a group of its own) is killed
  /// if it still runs that many seconds later, so that a test reading its output to the end
  /// cannot wait forever.
  public static func run(_ process: Process, killAfter seconds: Double? = nil) throws {
    let prefix = deathSignalPrefix()
    if let executable = process.executableURL, let setpriv = prefix.first {
      process.arguments = prefix.dropFirst() + [executable.path] + (process.arguments ?? [])
      process.executableURL = URL(fileURLWithPath: setpriv)
    }
    let box = ProcessBox(process)
    try onSpawningThread { try box.process.run() }
    if let seconds {
      let pid = process.processIdentifier
      DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
        guard box.process.isRunning else { return }
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
      }
    }
  }

  /// Runs `body` (a posix_spawn, say) on the thread that lives as long as the test process.
  public static func onSpawningThread<T>(_ body: @escaping () throws -> T) throws -> T {
    try SpawningThread.shared.run(body)
  }

  private final class ProcessBox: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
  }

  /// One thread, started on first use, that runs the spawns handed to it, one at a time.
  private final class SpawningThread: @unchecked Sendable {
    static let shared = SpawningThread()
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []

    private init() {
      let thread = Thread { [self] in serve() }
      thread.name = "test-process-spawner"
      thread.start()
    }

    private func serve() {
      while true {
        condition.lock()
        while jobs.isEmpty { condition.wait() }
        let job = jobs.removeFirst()
        condition.unlock()
        job()
      }
    }

    func run<T>(_ body: @escaping () throws -> T) throws -> T {
      let done = DispatchSemaphore(value: 0)
      var result: Result<T, any Error>?
      condition.lock()
      jobs.append {
        result = Result { try body() }
        done.signal()
      }
      condition.signal()
      condition.unlock()
      done.wait()
      guard let result else { preconditionFailure("the spawning thread ran no job") }
      return try result.get()
    }
  }
}

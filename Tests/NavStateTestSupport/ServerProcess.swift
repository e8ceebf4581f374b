public import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The real `navstate` binary, started on a free port for one test.
public final class ServerProcess: @unchecked Sendable {
  public let process = Process()
  public let port: UInt16
  private let output = Pipe()
  private let errors = Pipe()

  public static var binary: URL {
    if let path = ProcessInfo.processInfo.environment["NAVSTATE_BINARY"] {
      return URL(fileURLWithPath: path)
    }
    // The test bundle and the executable are built into the same products folder.
    var folder = Bundle.main.bundleURL
    for _ in 0..<4 {
      let candidate = folder.appendingPathComponent("navstate")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      folder.deleteLastPathComponent()
    }
    for configuration in ["debug", "release"] {
      let candidate = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../.build/\(configuration)/navstate").standardized
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return URL(fileURLWithPath: ".build/debug/navstate")
  }

  /// Starts the server with `arguments` (port 0 is added) and reads the port from its first line.
  /// It dies with the test process (`ChildProcesses`); one that does not start within 20 s is
  /// killed.
  public init(_ arguments: [String] = []) throws {
    process.executableURL = Self.binary
    process.arguments = ["--port", "0", "--log-level", "warning"] + arguments
    process.standardOutput = output
    process.standardError = errors
    try ChildProcesses.run(process)
    let line: String
    do {
      line = try Self.readLine(from: output.fileHandleForReading, timeout: 20)
    } catch {
      Self.killAndReap(process)
      throw error
    }
    guard let range = line.range(of: "listening on http://127.0.0.1:"),
      let port = UInt16(line[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines))
    else {
      Self.killAndReap(process)
      throw ServerError.unexpectedFirstLine(line)
    }
    self.port = port
  }

  private static func killAndReap(_ process: Process) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// The server's base URL.
  public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Sends SIGTERM and waits; returns the exit status.
  @discardableResult
  public func stop(timeout: Double = 10) -> Int32 {
    guard process.isRunning else { return process.terminationStatus }
    kill(process.processIdentifier, SIGTERM)
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      return -1
    }
    return process.terminationStatus
  }

  deinit {
    Self.killAndReap(process)
  }

  /// What the server wrote after its first line, on standard output and then standard error, as
  /// far as it can be read now (all of it once the server has exited).
  public func writtenText() -> String {
    Self.readAvailable(output.fileHandleForReading.fileDescriptor)
      + Self.readAvailable(errors.fileHandleForReading.fileDescriptor)
  }

  private static func readAvailable(_ fd: Int32) -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while poll(&poller, 1, 100) > 0 {
      let count = read(fd, &chunk, chunk.count)
      guard count > 0 else { break }
      bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  public enum ServerError: Error {
    case unexpectedFirstLine(String)
    case noOutput
  }

  private static func readLine(from handle: FileHandle, timeout: Double) throws -> String {
    var bytes: [UInt8] = []
    let deadline = Date().addingTimeInterval(timeout)
    let fd = handle.fileDescriptor
    while Date() < deadline {
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 100) > 0 else { continue }
      var byte: UInt8 = 0
      guard read(fd, &byte, 1) == 1 else { throw ServerError.noOutput }
      if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
    throw ServerError.noOutput
  }
}

import Glibc

/// A minimal HTTP/1.1 client over a blocking socket to 127.0.0.1, so tests can send anything
/// (malformed framing, half requests, pauses) and read exactly what comes back.
final class RawHTTPClient {
  enum Failure: Error, Equatable {
    case connect(Int32)
    case send(Int32)
    /// Nothing arrived within the receive timeout.
    case timeout
    /// The server closed the connection (EOF or reset).
    case closed
    case malformed(String)
  }

  struct Response {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
      headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }
  }

  private let descriptor: Int32
  private var buffer: [UInt8] = []
  private var isOpen = true

  /// - Parameter receiveBufferSize: a small SO_RCVBUF (set before connecting, which also turns
  ///   off the kernel's autotuning) makes a client that does not read push back quickly.
  init(port: UInt16, receiveTimeout: Double = 3, receiveBufferSize: Int32? = nil) throws {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw Failure.connect(errno) }
    if var size = receiveBufferSize {
      _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      Glibc.close(descriptor)
      throw Failure.connect(code)
    }
    setReceiveTimeout(receiveTimeout)
  }

  deinit {
    close()
  }

  func setReceiveTimeout(_ seconds: Double) {
    var value = timeval(
      tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
    _ = setsockopt(
      descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
  }

  func close() {
    guard isOpen else { return }
    isOpen = false
    Glibc.close(descriptor)
  }

  func send(_ text: String) throws {
    try send(Array(text.utf8))
  }

  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes { raw in
        Glibc.send(descriptor, raw.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
      }
      guard sent > 0 else { throw Failure.send(errno) }
      offset += sent
    }
  }

  /// Reads one whole response (for HEAD, without a body).
  func readResponse(method: String = "GET") throws -> Response {
    var response = try readHead()
    if method != "HEAD" {
      response.body = try readBody(of: response)
    }
    return response
  }

  /// Reads the status line and headers.
  func readHead() throws -> Response {
    var end = buffer.firstRange(of: Array("\r\n\r\n".utf8))
    while end == nil {
      try fill()
      end = buffer.firstRange(of: Array("\r\n\r\n".utf8))
    }
    let headText = String(decoding: buffer[..<end!.lowerBound], as: UTF8.self)
    buffer.removeFirst(end!.upperBound)
    var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false)
    let statusLine = lines.removeFirst().split(separator: " ")
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
      throw Failure.malformed(headText)
    }
    var headers: [(String, String)] = []
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { throw Failure.malformed(String(line)) }
      let name = String(line[..<colon])
      let value = line[line.index(after: colon)...].trimmingPrefix(" ")
      headers.append((name, String(value)))
    }
    return Response(status: status, headers: headers, body: [])
  }

  func readBody(of head: Response) throws -> [UInt8] {
    if head.header("Transfer-Encoding")?.lowercased() == "chunked" {
      var body: [UInt8] = []
      while let chunk = try readChunk() { body += chunk }
      return body
    }
    guard let length = head.header("Content-Length").flatMap({ Int($0) }) else { return [] }
    return try readExactly(length)
  }

  /// The next chunk of a chunked body; nil after the last (zero-size) chunk.
  func readChunk() throws -> [UInt8]? {
    let line = try readLine()
    guard let size = Int(line.split(separator: ";")[0], radix: 16) else {
      throw Failure.malformed(line)
    }
    if size == 0 {
      while try !readLine().isEmpty {}  // trailers, then the empty line
      return nil
    }
    let chunk = try readExactly(size)
    guard try readLine().isEmpty else { throw Failure.malformed("chunk not followed by CRLF") }
    return chunk
  }

  /// What has arrived: the bytes already read ahead, else those of one receive.
  func readAvailable() throws -> [UInt8] {
    if buffer.isEmpty { try fill() }
    defer { buffer.removeAll() }
    return buffer
  }

  /// True if the server closes the connection (EOF or reset) within `timeout`; data that arrives
  /// meanwhile is discarded.
  func waitForClose(timeout: Double) -> Bool {
    let deadline = monotonicSeconds() + timeout
    setReceiveTimeout(0.05)
    while monotonicSeconds() < deadline {
      do {
        try fill()
        buffer.removeAll()
      } catch Failure.closed {
        return true
      } catch {
        continue
      }
    }
    return false
  }

  private func readLine() throws -> String {
    var end = buffer.firstRange(of: Array("\r\n".utf8))
    while end == nil {
      try fill()
      end = buffer.firstRange(of: Array("\r\n".utf8))
    }
    let line = String(decoding: buffer[..<end!.lowerBound], as: UTF8.self)
    buffer.removeFirst(end!.upperBound)
    return line
  }

  private func readExactly(_ count: Int) throws -> [UInt8] {
    while buffer.count < count { try fill() }
    let bytes = Array(buffer[..<count])
    buffer.removeFirst(count)
    return bytes
  }

  private func fill() throws {
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    let received = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
    if received > 0 {
      buffer += chunk[..<received]
      return
    }
    if received == 0 { throw Failure.closed }
    switch errno {
    case EAGAIN, EWOULDBLOCK: throw Failure.timeout
    case ECONNRESET, EPIPE: throw Failure.closed
    default: throw Failure.closed
    }
  }
}

func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// CPU time (user + system) used by this process so far, in seconds.
func processCPUSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
  let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
  return user + system
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Double = 2, _ condition: () -> Bool) -> Bool {
  let deadline = monotonicSeconds() + timeout
  while monotonicSeconds() < deadline {
    if condition() { return true }
    usleep(5000)
  }
  return condition()
}

func sleepSeconds(_ seconds: Double) {
  usleep(UInt32(seconds * 1_000_000))
}

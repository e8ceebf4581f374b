import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A response as the tests see it: status, headers in order (names as sent), body.
public struct TestResponse: Sendable {
  public var status: Int
  public var headers: [(String, String)]
  public var body: [UInt8]

  public init(status: Int, headers: [(String, String)], body: [UInt8]) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// The first value of the header `name` (compared case-insensitively).
  public func header(_ name: String) -> String? {
    headers.first { $0.0.lowercased() == name.lowercased() }?.1
  }

  public var text: String { String(decoding: body, as: UTF8.self) }

  /// The status line and header fields of a response head (without its final CRLF CRLF); nil if
  /// the status line has no status code or a field line has no colon. Values lose their
  /// surrounding whitespace (RFC 9112 §5: optional whitespace around a field value).
  public static func head(_ text: String) -> (status: Int, headers: [(String, String)])? {
    var lines = text.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst().split(separator: " ")
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
    var headers: [(String, String)] = []
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { return nil }
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      headers.append((String(line[..<colon]), value))
    }
    return (status, headers)
  }
}

/// A minimal HTTP/1.1 client over a blocking socket to 127.0.0.1, so tests can send anything
/// (malformed framing, half requests, pauses) and read exactly what comes back, one response
/// at a time on a connection they keep. `HTTPTestClient` is the one-request-per-connection
/// front of it.
public final class RawHTTPClient {
  public typealias Response = TestResponse

  public enum Failure: Error, Equatable, CustomStringConvertible {
    case connect(Int32)
    case send(Int32)
    /// Nothing arrived within the receive timeout.
    case timeout
    /// The server closed the connection (EOF or reset).
    case closed
    case malformed(String)
    /// The connection ended before a whole response (what had arrived).
    case closedEarly(String)

    public var description: String {
      switch self {
      case .connect(let code): "connect failed: errno \(code)"
      case .send(let code): "send failed: errno \(code)"
      case .timeout: "timed out waiting for the response"
      case .closed: "the server closed the connection"
      case .malformed(let text): "malformed response: \(text.prefix(200))"
      case .closedEarly(let got): "connection closed before a full response: \(got.prefix(200))"
      }
    }
  }

  private let descriptor: Int32
  private var buffer: [UInt8] = []
  private var isOpen = true

  /// - Parameters:
  ///   - receiveBufferSize: a small SO_RCVBUF (set before connecting, which also turns off the
  ///     kernel's autotuning) makes a client that does not read push back quickly.
  ///   - sendTimeout: bounds each send (a body to a server that reads nothing fills the
  ///     socket's buffers); nil: a send waits as long as it takes.
  public init(
    port: UInt16, receiveTimeout: Double = 3, receiveBufferSize: Int32? = nil,
    sendTimeout: Double? = nil
  ) throws {
    descriptor = try Self.connectedSocket(
      port: port, receiveTimeout: receiveTimeout, sendTimeout: sendTimeout,
      receiveBufferSize: receiveBufferSize)
  }

  deinit {
    close()
  }

  /// A blocking TCP socket connected to 127.0.0.1:`port`, with its timeouts set; the caller
  /// closes it.
  public static func connectedSocket(
    port: UInt16, receiveTimeout: Double, sendTimeout: Double? = nil,
    receiveBufferSize: Int32? = nil
  ) throws -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
    setTimeout(SO_RCVTIMEO, receiveTimeout, on: descriptor)
    if let sendTimeout { setTimeout(SO_SNDTIMEO, sendTimeout, on: descriptor) }
    return descriptor
  }

  private static func setTimeout(_ option: Int32, _ seconds: Double, on descriptor: Int32) {
    var value = timeval(
      tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
    _ = setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
  }

  public func setReceiveTimeout(_ seconds: Double) {
    Self.setTimeout(SO_RCVTIMEO, seconds, on: descriptor)
  }

  public func close() {
    guard isOpen else { return }
    isOpen = false
    Glibc.close(descriptor)
  }

  public func send(_ text: String) throws {
    try send(Array(text.utf8))
  }

  public func send(_ bytes: [UInt8]) throws {
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
  public func readResponse(method: String = "GET") throws -> Response {
    var response = try readHead()
    if method != "HEAD" {
      response.body = try readBody(of: response)
    }
    return response
  }

  /// Reads the status line and headers.
  public func readHead() throws -> Response {
    var end = buffer.firstRange(of: Array("\r\n\r\n".utf8))
    while end == nil {
      try fill()
      end = buffer.firstRange(of: Array("\r\n\r\n".utf8))
    }
    let headText = String(decoding: buffer[..<end!.lowerBound], as: UTF8.self)
    buffer.removeFirst(end!.upperBound)
    guard let head = Response.head(headText) else { throw Failure.malformed(headText) }
    return Response(status: head.status, headers: head.headers, body: [])
  }

  public func readBody(of head: Response) throws -> [UInt8] {
    if head.header("Transfer-Encoding")?.lowercased() == "chunked" {
      var body: [UInt8] = []
      while let chunk = try readChunk() { body += chunk }
      return body
    }
    guard let length = head.header("Content-Length").flatMap({ Int($0) }) else { return [] }
    return try readExactly(length)
  }

  /// The next chunk of a chunked body; nil after the last (zero-size) chunk.
  public func readChunk() throws -> [UInt8]? {
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
  public func readAvailable() throws -> [UInt8] {
    if buffer.isEmpty { try fill() }
    defer { buffer.removeAll() }
    return buffer
  }

  /// Every byte until the server closes the connection.
  public func readToEnd(timeout: Double = 3) throws -> [UInt8] {
    var bytes: [UInt8] = []
    let deadline = Self.monotonicSeconds() + timeout
    while Self.monotonicSeconds() < deadline {
      do {
        bytes += try readAvailable()
      } catch Failure.closed {
        return bytes
      } catch Failure.timeout {
        continue
      }
    }
    throw Failure.timeout
  }

  /// True if the server closes the connection (EOF or reset) within `timeout`; data that arrives
  /// meanwhile is discarded.
  public func waitForClose(timeout: Double) -> Bool {
    let deadline = Self.monotonicSeconds() + timeout
    setReceiveTimeout(0.05)
    while Self.monotonicSeconds() < deadline {
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
    default: throw Failure.closed  // ECONNRESET, EPIPE and the rest: the connection is gone
    }
  }

  private static func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }
}

/// One request per connection (`Connection: close`), over `RawHTTPClient`, so the tests control
/// every byte (URLSession on Linux hides too much and cannot send malformed requests).
public struct HTTPTestClient: Sendable {
  public let port: UInt16

  public init(port: UInt16) {
    self.port = port
  }

  public func request(
    _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
    timeout: Double = 10
  ) throws -> TestResponse {
    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if let body { head += "Content-Length: \(body.count)\r\n" }
    head += "\r\n"
    return try raw(Array(head.utf8) + (body ?? []), timeout: timeout)
  }

  /// Sends bytes as they are and reads the response, to the end of the connection if it has
  /// neither a Content-Length nor a status without a body (204, 304).
  public func raw(_ bytes: [UInt8], timeout: Double = 10) throws -> TestResponse {
    let connection = try RawHTTPClient(
      port: port, receiveTimeout: timeout, sendTimeout: timeout)
    // A server may answer, and close, before it has read the whole request: what it sent is
    // read all the same.
    try? connection.send(bytes)
    var received: [UInt8] = []
    while true {
      do {
        received += try connection.readAvailable()
      } catch RawHTTPClient.Failure.timeout {
        throw RawHTTPClient.Failure.timeout
      } catch {
        break
      }
      if let response = Self.parse(received) { return response }
    }
    guard let response = Self.parse(received, atEnd: true) else {
      throw RawHTTPClient.Failure.closedEarly(String(decoding: received, as: UTF8.self))
    }
    return response
  }

  /// A socket connected to the server with both timeouts set to `timeout`; the caller closes it.
  public func connectSocket(timeout: Double) throws -> Int32 {
    try RawHTTPClient.connectedSocket(port: port, receiveTimeout: timeout, sendTimeout: timeout)
  }

  /// A whole response once the head and a Content-Length body have arrived (or, `atEnd`, the
  /// connection has ended).
  public static func parse(_ bytes: [UInt8], atEnd: Bool = false) -> TestResponse? {
    let separator: [UInt8] = [13, 10, 13, 10]
    guard let headEnd = bytes.firstRange(of: separator),
      let head = TestResponse.head(String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self))
    else { return nil }
    let (status, headers) = head
    let body = Array(bytes[headEnd.upperBound...])
    if let length = headers.first(where: { $0.0.lowercased() == "content-length" }).flatMap({
      Int($0.1)
    }) {
      guard body.count >= length else { return nil }
      return TestResponse(status: status, headers: headers, body: Array(body.prefix(length)))
    }
    if status == 204 || status == 304 {
      return TestResponse(status: status, headers: headers, body: [])
    }
    return atEnd ? TestResponse(status: status, headers: headers, body: body) : nil
  }
}

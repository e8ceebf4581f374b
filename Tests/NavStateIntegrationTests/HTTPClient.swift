import Foundation
import NavJSON
import NavStateTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A response as the tests see it.
struct TestResponse: Sendable {
  var status: Int
  var headers: [(String, String)]
  var body: [UInt8]

  func header(_ name: String) -> String? {
    headers.first { $0.0.lowercased() == name.lowercased() }?.1
  }

  var text: String { String(decoding: body, as: UTF8.self) }

  var json: JSONValue {
    (try? JSONParser.parse(body)) ?? .null
  }
}

enum TestClientError: Error, CustomStringConvertible {
  case connect(Int32)
  case closedEarly(String)
  case timeout

  var description: String {
    switch self {
    case .connect(let code): "connect failed: errno \(code)"
    case .closedEarly(let got): "connection closed before a full response: \(got.prefix(200))"
    case .timeout: "timed out waiting for the response"
    }
  }
}

/// A small HTTP/1.1 client over a raw socket: one request per connection, so the tests control
/// every byte (URLSession on Linux hides too much and cannot send malformed requests).
struct HTTPTestClient: Sendable {
  let port: UInt16

  func request(
    _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
    timeout: Double = 10
  ) throws -> TestResponse {
    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if let body { head += "Content-Length: \(body.count)\r\n" }
    head += "\r\n"
    return try raw(Array(head.utf8) + (body ?? []), timeout: timeout)
  }

  func json(
    _ method: String, _ path: String, token: String? = nil, body: JSONValue? = nil,
    headers: [(String, String)] = []
  ) throws -> TestResponse {
    var all = headers
    if let token { all.append(("Authorization", "Bearer \(token)")) }
    if body != nil { all.append(("Content-Type", "application/json")) }
    return try request(method, path, headers: all, body: body?.encoded)
  }

  /// Sends bytes as they are and reads the response to the end of the connection.
  func raw(_ bytes: [UInt8], timeout: Double = 10) throws -> TestResponse {
    let socket = try connectSocket(timeout: timeout)
    defer { close(socket) }
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes {
        send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard count > 0 else { break }
      sent += count
    }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = recv(socket, &buffer, buffer.count, 0)
      if count > 0 {
        received += buffer[0..<count]
        if let response = Self.parse(received) { return response }
      } else if count == 0 {
        break
      } else {
        if errno == EAGAIN || errno == EWOULDBLOCK { throw TestClientError.timeout }
        break
      }
    }
    guard let response = Self.parse(received, atEnd: true) else {
      throw TestClientError.closedEarly(String(decoding: received, as: UTF8.self))
    }
    return response
  }

  func connectSocket(timeout: Double) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      close(fd)
      throw TestClientError.connect(code)
    }
    var interval = timeval(
      tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
    // Sending is bounded too: a body to a server that reads nothing fills the socket's buffers.
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
    return fd
  }

  /// A whole response once the head and a Content-Length body have arrived.
  static func parse(_ bytes: [UInt8], atEnd: Bool = false) -> TestResponse? {
    let separator: [UInt8] = [13, 10, 13, 10]
    guard let headEnd = bytes.firstRange(of: separator) else { return nil }
    let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst().split(separator: " ")
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
    let headers = lines.compactMap { line -> (String, String)? in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      return (
        String(line[..<colon]),
        line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      )
    }
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

extension ServerProcess {
  var client: HTTPTestClient { HTTPTestClient(port: port) }

  /// The value of the unlabelled series `name` on `/metrics`, if it is there.
  func metric(_ name: String) throws -> Double? {
    let text = try client.request("GET", "/metrics").text
    let line = text.split(separator: "\n").first { $0.hasPrefix("\(name) ") }
    return line.flatMap { Double($0.split(separator: " ").last ?? "") }
  }
}

/// A complete request, body included, as handed to an ``HTTPHandler``.
public struct HTTPRequest: Sendable {
  /// The request method as sent, e.g. "GET" or "POST".
  public var method: String
  /// The path of the request target without the query, as received (not percent-decoded).
  public var path: String
  /// The raw query string after the first "?", or nil when the target has none.
  public var query: String?
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// The peer's IP address, e.g. "127.0.0.1" or "::1" (formatted only when read).
  public var remoteAddress: String {
    get { address ?? received?.peerAddress ?? "" }
    set { address = newValue }
  }
  private var address: String?
  private var received: ReceivedHeaders?

  public init(
    method: String, path: String, query: String? = nil, headers: HTTPHeaders = .init(),
    body: [UInt8] = [], remoteAddress: String = "127.0.0.1"
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
    self.address = remoteAddress
    self.received = nil
  }

  /// A received request: the target ("/a/b?x=1") split into path and raw query, the headers and
  /// the peer's address read from the connection on demand.
  init(method: String, target: String, received: ReceivedHeaders, body: [UInt8]) {
    (self.path, self.query) = Self.split(target: target)
    self.method = method
    self.headers = HTTPHeaders(received: received)
    self.body = body
    self.address = nil
    self.received = received
  }

  static func split(target: String) -> (path: String, query: String?) {
    var target = target
    let mark = target.withUTF8 { RequestTarget.queryMark(in: $0) }
    guard let mark else { return (target, nil) }
    let utf8 = target.utf8
    let markIndex = utf8.index(utf8.startIndex, offsetBy: mark)
    let path = String(target[..<markIndex])
    let query = String(target[utf8.index(after: markIndex)...])
    return (path, query)
  }

  /// The value of the first query item called `name` (names and values percent-decoded, and "+"
  /// read as a space as in HTML forms). An item without "=" has the value "". Nil when absent.
  public func queryItem(_ name: String) -> String? {
    guard let query else { return nil }
    for item in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
      let equals = item.firstIndex(of: UInt8(ascii: "="))
      let rawName = item[..<(equals ?? item.endIndex)]
      guard PercentDecoding.decode(rawName, plusAsSpace: true) == name else { continue }
      guard let equals else { return "" }
      return PercentDecoding.decode(item[item.index(after: equals)...], plusAsSpace: true)
    }
    return nil
  }
}

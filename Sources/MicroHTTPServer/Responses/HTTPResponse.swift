/// A response: a status, header fields and either a complete body or a stream.
///
/// `Content-Length` is computed by the server; a `Content-Length` header set here is ignored.
public struct HTTPResponse: Sendable {
  public var status: Int {
    didSet { preparedForm = nil }
  }
  public var headers: HTTPHeaders {
    didSet { preparedForm = nil }
  }
  public var body: Body {
    didSet { preparedForm = nil }
  }
  /// Set by ``prepared()``; dropped by any change, so it always matches the rest.
  var preparedForm: PreparedResponse? = nil

  public enum Body: Sendable {
    /// The whole body, sent with a `Content-Length`.
    case bytes([UInt8])
    /// The whole body, sent from the buffer without a copy.
    case buffer(BodyBuffer)
    /// A body produced over time, sent with chunked transfer coding (or until close for HTTP/1.0).
    case stream(HTTPStream)
  }

  public init(status: Int, headers: HTTPHeaders = .init(), body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = .bytes(body)
  }

  public init(status: Int, headers: HTTPHeaders = .init(), body: BodyBuffer) {
    self.status = status
    self.headers = headers
    self.body = .buffer(body)
  }

  /// A response whose body is written later through `stream`.
  public static func stream(status: Int = 200, headers: HTTPHeaders, _ stream: HTTPStream)
    -> HTTPResponse
  {
    var response = HTTPResponse(status: status, headers: headers)
    response.body = .stream(stream)
    return response
  }
}

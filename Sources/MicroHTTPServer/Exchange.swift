internal import CMicroHTTPD

/// One access-handler call: the server, the MHD connection and the request being read.
struct Exchange {
  let context: ServerContext
  let connection: OpaquePointer
  let request: RequestState

  /// First call: the headers are in, no body has been read. Check the framing; answer now only to
  /// refuse (queueing a response this early makes MHD close the connection afterwards, which is
  /// right for a refusal and wrong for a normal answer, so normal answers wait for `complete`).
  func begin(method: String) -> MHD_Result {
    request.started = true
    request.counted = true
    context.inFlight.add(1, ordering: .relaxed)
    request.method = method
    collectHeaders()
    let framing = RequestFraming.decide(
      contentLengths: request.contentLengths, transferEncodings: request.transferEncodings,
      maxBodyBytes: context.maxBodyBytes)
    request.contentLengths = []
    request.transferEncodings = []
    switch framing {
    case .reject(let status, let code, let detail):
      let response = HTTPResponse.problem(
        status: status, code: code, title: Self.title(status), detail: detail)
      return send(response, close: true)
    case .readBody(let expectedLength):
      if let expectedLength, expectedLength > 0 {
        request.body.reserveCapacity(expectedLength)
      }
      return .YES
    }
  }

  /// A piece of the body. Appended up to `maxBodyBytes`; past that the body is dropped and the
  /// request is answered 413 once it ends (MHD cannot queue a response in the middle of a body).
  func receive(_ bytes: UnsafeRawBufferPointer) -> MHD_Result {
    if request.tooLarge {
      request.discarded += bytes.count
      // A client that keeps sending far past the cap is cut off without an answer.
      return request.discarded > context.discardAllowance ? .NO : .YES
    }
    if request.body.count + bytes.count > context.maxBodyBytes {
      request.tooLarge = true
      request.discarded = request.body.count + bytes.count
      request.body = []
      return .YES
    }
    request.body.append(contentsOf: bytes)
    return .YES
  }

  /// Last call: the whole request is in. Run the handler and queue its response.
  func complete() -> MHD_Result {
    if request.tooLarge {
      guard
        case .reject(let status, let code, let detail) = RequestFraming.tooLarge(
          maxBodyBytes: context.maxBodyBytes)
      else { return .NO }
      let response = HTTPResponse.problem(
        status: status, code: code, title: Self.title(status), detail: detail)
      return send(response, close: true)
    }
    let body = request.body
    request.body = []
    let httpRequest = HTTPRequest(
      method: request.method, target: request.target, headers: request.headers, body: body,
      remoteAddress: PeerAddress.string(cmhd_client_address(connection)))
    request.headers = HTTPHeaders()
    let response = context.handler.handle(httpRequest)
    return send(response, close: false)
  }

  private func collectHeaders() {
    let state = Unmanaged.passUnretained(request).toOpaque()
    _ = MHD_get_connection_values_n(connection, .HEADER_KIND, mhdAddRequestHeader, state)
  }

  static func title(_ status: Int) -> String {
    switch status {
    case 400: return "Bad Request"
    case 413: return "Content Too Large"
    case 501: return "Not Implemented"
    default: return "Error"
    }
  }
}

/// MHD_KeyValueIteratorN over the request headers, in the order received. `cls` is the
/// RequestState (unretained: the caller holds it).
private func mhdAddRequestHeader(
  _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
  _ keySize: Int, _ value: UnsafePointer<CChar>?, _ valueSize: Int
) -> MHD_Result {
  guard let cls, let key else { return .YES }
  let request = Unmanaged<RequestState>.fromOpaque(cls).takeUnretainedValue()
  let name = decodeUTF8(key, keySize)
  let text = value.map { decodeUTF8($0, valueSize) } ?? ""
  request.headers.add(name, text)
  if name.equalsIgnoringASCIICase("Content-Length") {
    request.contentLengths.append(text)
  } else if name.equalsIgnoringASCIICase("Transfer-Encoding") {
    request.transferEncodings.append(text)
  }
  return .YES
}

private func decodeUTF8(_ pointer: UnsafePointer<CChar>, _ count: Int) -> String {
  pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
    String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
  }
}

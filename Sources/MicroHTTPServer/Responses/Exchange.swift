internal import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One access-handler call: the server, the MHD connection and the request being read.
struct Exchange {
  let context: ServerContext
  let connection: OpaquePointer
  let request: RequestState

  /// First call: the headers are in, no body has been read. Check the framing; answer now only to
  /// refuse (queueing a response this early makes MHD close the connection afterwards, which is
  /// right for a refusal and wrong for a normal answer, so normal answers wait for `complete`).
  func begin(method: UnsafePointer<CChar>, version: UnsafePointer<CChar>) -> MHD_Result {
    request.started = true
    request.counted = true
    context.inFlight.add(1, ordering: .relaxed)
    request.method = Self.methodName(method)
    request.blockStart = UInt(bitPattern: method)
    collectHeaders()
    if let refusal = refusal(method: method, version: version) {
      return refuse(refusal)
    }
    request.maxBodyBytes = context.maxBodyBytes
    // Asked only of a request that announces a body: most (every GET) do not.
    if let larger = context.largerBodyLimit,
      !request.contentLengths.isEmpty || !request.transferEncodings.isEmpty,
      let limit = larger(request.method, request.target)
    {
      request.maxBodyBytes = limit
    }
    let framing = RequestFraming.decide(
      contentLengths: request.contentLengths, transferEncodings: request.transferEncodings,
      maxBodyBytes: request.maxBodyBytes)
    // Emptied but kept: a connection's next request (almost always) has a Content-Length again.
    if !request.contentLengths.isEmpty { request.contentLengths.removeAll(keepingCapacity: true) }
    if !request.transferEncodings.isEmpty {
      request.transferEncodings.removeAll(keepingCapacity: true)
    }
    switch framing {
    case .reject(let status, let code, let detail):
      return refuse(
        HTTPResponse.problem(status: status, code: code, title: Self.title(status), detail: detail))
    case .readBody(let expectedLength):
      if let expectedLength, expectedLength > 0 {
        request.body.reserveCapacity(expectedLength)
      }
      let due = context.connections.timing.body(
        expectedLength: expectedLength ?? request.maxBodyBytes)
      // Lost the race with the deadline sweeper: the connection is being closed.
      guard
        request.connection?.advance(to: .readingBody, deadline: MonotonicClock.now() + due)
          != false
      else { return .NO }
      return .YES
    }
  }

  /// What is wrong with the request line and header block, if anything: malformed bytes (400),
  /// a missing or repeated Host (400), a Host this server does not answer for (421).
  private func refusal(method: UnsafePointer<CChar>, version: UnsafePointer<CChar>)
    -> HTTPResponse?
  {
    let start = request.blockStart
    let block = UnsafeRawBufferPointer(
      start: UnsafeRawPointer(method), count: cmhd_request_header_size(connection))
    let versionLength = strlen(version)
    if let problem = HeaderBlockAudit.problem(
      in: block,
      method: .init(offset: 0, length: request.method.utf8.count),
      target: .init(
        offset: Int(bitPattern: request.targetAddress &- start), length: request.targetLength),
      targetText: request.target,
      version: .init(
        offset: Int(bitPattern: UInt(bitPattern: version) &- start), length: versionLength),
      fields: request.fields)
    {
      return .problem(
        status: 400, code: "malformed_request", title: "Bad Request",
        detail: "Malformed request: \(problem).")
    }
    // The fields stay until the state is reused for the connection's next request.
    let isHTTP11 = versionLength == 8 && strcmp(version, "HTTP/1.1") == 0
    request.isHTTP11 = isHTTP11
    if request.hostCount > 1 || (isHTTP11 && request.hostCount == 0) {
      return .problem(
        status: 400, code: "bad_host", title: "Bad Request",
        detail: "An HTTP/1.1 request must carry exactly one Host field.")
    }
    // Credentials are one value (RFC 9110 §11.6.2): with two, which one a proxy in front
    // checked and which one is acted on could differ.
    if request.authorizationCount > 1 {
      return .problem(
        status: 400, code: "bad_authorization", title: "Bad Request",
        detail: "A request may carry at most one Authorization field.")
    }
    // Absolute form: served as its origin form, and its authority stands for Host (RFC 9112
    // §3.2.2), which the audit above has seen as the client sent it.
    let absolute = RequestTarget.absoluteForm(request.target)
    if let absolute { request.target = absolute.originForm }
    if !context.allowedHosts.isEmpty {
      let host: String
      if let absolute {
        host = HostName.normalized(String(absolute.authority))
      } else {
        let value = UnsafeRawBufferPointer(
          rebasing: block[request.host.offset..<(request.host.offset + request.host.length)])
        host = HostName.normalized(String(decoding: value, as: UTF8.self))
      }
      if !context.allowedHosts.contains(host) {
        return .problem(
          status: 421, code: "misdirected_request", title: "Misdirected Request",
          detail: "This server does not answer for that Host.")
      }
    }
    return nil
  }

  /// Answers at once with `response` and closes the connection afterwards; counted as a
  /// refusal, since no route sees it.
  private func refuse(_ response: HTTPResponse) -> MHD_Result {
    guard request.connection?.advance(to: .processing, deadline: 0) != false else { return .NO }
    context.handler.recordRefusal(method: request.method, status: response.status)
    return send(response, close: true)
  }

  /// A piece of the body. Appended up to `maxBodyBytes`; past that the body is dropped and the
  /// request is answered 413 once it ends (MHD cannot queue a response in the middle of a body).
  func receive(_ bytes: UnsafeRawBufferPointer) -> MHD_Result {
    if request.tooLarge {
      request.discarded += bytes.count
      // A client that keeps sending far past the cap is cut off without an answer.
      return request.discarded > context.discardAllowance ? .NO : .YES
    }
    if request.body.count + bytes.count > request.maxBodyBytes {
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
    guard request.connection?.advance(to: .processing, deadline: 0) != false else { return .NO }
    if request.tooLarge {
      guard
        case .reject(let status, let code, let detail) = RequestFraming.tooLarge(
          maxBodyBytes: request.maxBodyBytes)
      else { return .NO }
      let response = HTTPResponse.problem(
        status: status, code: code, title: Self.title(status), detail: detail)
      context.handler.recordRefusal(method: request.method, status: status)
      return send(response, close: true)
    }
    if let constant = context.handler.constantResponse(
      method: request.method, target: request.target)
    {
      // Queued as it is; reading the response out of its box would copy every field.
      if let prepared = constant.prepared, !context.stopping.load(ordering: .relaxed) {
        return MHD_queue_response(connection, prepared.status, prepared.response)
      }
      return send(constant.response, close: false)
    }
    let body = request.body
    request.body = []
    request.mhdConnection = connection
    let received = ReceivedHeaders(request: request)
    // Built in the call, so the request is passed along without a copy of its own.
    let response = context.handler.handle(
      HTTPRequest(method: request.method, target: request.target, received: received, body: body))
    request.handlerReturned()
    request.mhdConnection = nil
    return send(response, close: false)
  }

  private func collectHeaders() {
    // One allocation for the usual number of fields, rather than growing 1, 2, 4, 8, 16.
    request.fields.reserveCapacity(16)
    let state = Unmanaged.passUnretained(request).toOpaque()
    _ = MHD_get_connection_values_n(connection, .HEADER_KIND, mhdAddRequestHeader, state)
  }

  /// The method as a `String`: the common ones are literals (no allocation, no UTF-8 check).
  static func methodName(_ method: UnsafePointer<CChar>) -> String {
    // The name's bytes, then the method's NUL (a StaticString is not promised one of its own).
    func spells(_ name: StaticString) -> Bool {
      let count = name.utf8CodeUnitCount
      return strncmp(
        UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self), method, count) == 0
        && method[count] == 0
    }
    switch UInt8(bitPattern: method[0]) {
    case UInt8(ascii: "G") where spells("GET"): return "GET"
    case UInt8(ascii: "P") where spells("POST"): return "POST"
    case UInt8(ascii: "P") where spells("PUT"): return "PUT"
    case UInt8(ascii: "P") where spells("PATCH"): return "PATCH"
    case UInt8(ascii: "H") where spells("HEAD"): return "HEAD"
    case UInt8(ascii: "D") where spells("DELETE"): return "DELETE"
    case UInt8(ascii: "O") where spells("OPTIONS"): return "OPTIONS"
    default: return String(cString: method)
    }
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
/// RequestState (unretained: the caller holds it). Records where each field lies for the audit
/// and picks out the fields the server itself reads; nothing else is copied.
private func mhdAddRequestHeader(
  _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
  _ keySize: Int, _ value: UnsafePointer<CChar>?, _ valueSize: Int
) -> MHD_Result {
  guard let cls, let key else { return .YES }
  Unmanaged<RequestState>.fromOpaque(cls)._withUnsafeGuaranteedRef { request in
    record(request, key, keySize, value, valueSize)
  }
  return .YES
}

/// Notes one header field of `request` (see `mhdAddRequestHeader`).
private func record(
  _ request: RequestState, _ key: UnsafePointer<CChar>, _ keySize: Int,
  _ value: UnsafePointer<CChar>?, _ valueSize: Int
) {
  let start = request.blockStart
  let field = HeaderBlockAudit.Field(
    name: .init(offset: Int(bitPattern: UInt(bitPattern: key) &- start), length: keySize),
    value: .init(
      offset: Int(bitPattern: UInt(bitPattern: value) &- start),
      length: value == nil ? 0 : valueSize))
  request.fields.append(field)
  request.nameLengths |= 1 &<< UInt64(keySize & 63)
  let name = UnsafeRawBufferPointer(start: key, count: keySize)
  if name.equalsIgnoringASCIICase("host") {
    request.hostCount += 1
    if request.hostCount == 1 { request.host = field.value }
  } else if name.equalsIgnoringASCIICase("content-length") {
    request.contentLengths.append(decodeUTF8(value, valueSize))
  } else if name.equalsIgnoringASCIICase("transfer-encoding") {
    request.transferEncodings.append(decodeUTF8(value, valueSize))
  } else if name.equalsIgnoringASCIICase("authorization") {
    request.authorizationCount += 1
  }
}

private func decodeUTF8(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
  guard let pointer else { return "" }
  return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
    String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
  }
}

extension UnsafeRawBufferPointer {
  /// Whether these bytes spell `lowercase` (which must be lower-case ASCII), ignoring ASCII case.
  func equalsIgnoringASCIICase(_ lowercase: StaticString) -> Bool {
    guard count == lowercase.utf8CodeUnitCount else { return false }
    let expected = lowercase.utf8Start
    for index in 0..<count where self[index].asciiLowercased != expected[index] {
      return false
    }
    return true
  }
}

internal import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// The daemon-wide C callbacks. Free functions, because only a reference to a `func` (or a literal
// closure) becomes a C function pointer; they capture nothing, run on MHD's worker threads, and
// find the server through `cls` (the retained ServerContext) and the request through `*con_cls`.

/// MHD_OPTION_URI_LOG_CALLBACK: the request line has been parsed. Its return value becomes
/// `*con_cls`, so this is where per-request state starts; it is also the one place that sees the
/// target as received, before MHD cuts off the query and splits it in place.
func mhdRequestStarted(
  _ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
  let length = uri.map { strlen($0) } ?? 0
  // Its length is known: decoded from the bytes, not measured again as a C string.
  let target =
    uri.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) }
    ?? ""
  var state: ConnectionState?
  if let cls, let connection, let raw = cmhd_socket_context(connection) {
    let headerTimeout = Unmanaged<ServerContext>.fromOpaque(cls)._withUnsafeGuaranteedRef {
      $0.connections.timing.headers
    }
    state = Unmanaged<ConnectionState>.fromOpaque(raw).takeUnretainedValue()
    state?.requestLineArrived(now: MonotonicClock.now(), headerTimeout: headerTimeout)
  }
  let request: RequestState
  if let spare = state?.spareRequest {
    state?.spareRequest = nil
    spare.reuse(target: target, targetAddress: UInt(bitPattern: uri), targetLength: length)
    request = spare
  } else {
    request = RequestState(
      target: target, connection: state, targetAddress: UInt(bitPattern: uri),
      targetLength: length)
  }
  return Unmanaged.passRetained(request).toOpaque()
}

/// MHD_OPTION_NOTIFY_CONNECTION: a connection was accepted (its deadline starts) or is about to
/// be closed (before MHD closes its descriptor).
func mhdConnectionChanged(
  _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
  _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
  _ code: MHD_ConnectionNotificationCode
) {
  guard let cls, let connection, let socketContext else { return }
  let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
  // The C enum's cases are not imported by name here; 0 is STARTED and 1 CLOSED (microhttpd.h).
  switch code.rawValue {
  case 0:
    let registry = context.connections
    let state = ConnectionState(
      descriptor: cmhd_connection_fd(connection),
      deadline: registry.timing.waiting(from: MonotonicClock.now()),
      address: registry.perAddressLimit > 0
        ? ClientAddressKey(cmhd_client_address(connection)) : nil)
    socketContext.pointee = Unmanaged.passRetained(state).toOpaque()
    context.connections.opened(state)
  case 1:
    guard let raw = socketContext.pointee else { return }
    socketContext.pointee = nil
    let state = Unmanaged<ConnectionState>.fromOpaque(raw).takeRetainedValue()
    state.spareRequest = nil
    context.connections.closed(state)
  default:
    break
  }
}

/// MHD_AcceptPolicyCallback: refuse a connection over the limit as soon as it is accepted.
func mhdAcceptPolicy(
  _ cls: UnsafeMutableRawPointer?, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t
) -> MHD_Result {
  guard let cls else { return .YES }
  let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
  return context.connections.admits(from: address) ? .YES : .NO
}

/// MHD_OPTION_NOTIFY_COMPLETED: the request is over (answered, failed, timed out, or the daemon
/// is stopping). Releases the per-request state taken in `mhdRequestStarted`.
func mhdRequestCompleted(
  _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
  _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
  _ reason: MHD_RequestTerminationCode
) {
  guard let cls, let conCls, let raw = conCls.pointee else { return }
  conCls.pointee = nil
  var request = Unmanaged<RequestState>.fromOpaque(raw).takeRetainedValue()
  let idleDeadline = Unmanaged<ServerContext>.fromOpaque(cls)._withUnsafeGuaranteedRef { context in
    if request.counted {
      context.inFlight.subtract(1, ordering: .releasing)
    } else if let connection, case let status = cmhd_http_status(connection), status >= 400 {
      // The handler never saw this request: libmicrohttpd answered it itself (headers past the
      // connection's memory, 431; a Content-Length it cannot read, 400).
      context.handler.recordRefusal(method: "", status: Int(status))
    }
    return context.connections.timing.waiting(from: MonotonicClock.now())
  }
  // Kept alive: the next request line must start within the idle time (MHD's own timeout only
  // counts silence, so a trickle would reset it forever).
  request.connection?.advance(to: .idle, deadline: idleDeadline)
  // MHD reports a request completed before its connection closed, which clears this again.
  if let connection = request.connection, isKnownUniquelyReferenced(&request) {
    connection.spareRequest = request
  }
}

/// MHD_AccessHandlerCallback: called once with the headers, once per piece of body, and once
/// more when the request is complete.
func mhdAccess(
  _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
  _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?,
  _ uploadData: UnsafePointer<CChar>?, _ uploadDataSize: UnsafeMutablePointer<Int>?,
  _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
  guard let cls, let connection, let uploadDataSize, let conCls else { return .NO }
  if conCls.pointee == nil {
    // mhdRequestStarted always sets it; keep going should MHD ever skip it.
    let request = RequestState(target: url.map { String(cString: $0) } ?? "/")
    conCls.pointee = Unmanaged.passRetained(request).toOpaque()
  }
  // Both are held for the whole call (the context by the daemon, the request by `*con_cls`):
  // borrowed as they are, with no retain and release of each just to reach them.
  return Unmanaged<ServerContext>.fromOpaque(cls)._withUnsafeGuaranteedRef { context in
    Unmanaged<RequestState>.fromOpaque(conCls.pointee!)._withUnsafeGuaranteedRef { request in
      access(
        Exchange(context: context, connection: connection, request: request), method: method,
        version: version, uploadData: uploadData, uploadDataSize: uploadDataSize)
    }
  }
}

private func access(
  _ exchange: Exchange, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
  uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>
) -> MHD_Result {
  let request = exchange.request
  if !request.started {
    guard let method, let version else { return .NO }
    return exchange.begin(method: method, version: version)
  }
  let count = uploadDataSize.pointee
  if count > 0 {
    uploadDataSize.pointee = 0  // all of it is consumed (kept or dropped)
    guard let uploadData else { return .NO }
    return exchange.receive(UnsafeRawBufferPointer(start: uploadData, count: count))
  }
  return exchange.complete()
}

/// MHD_OPTION_EXTERNAL_LOGGER: formats MHD's printf-style message for the configured log.
func mhdLog(
  _ cls: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?
) {
  guard let cls, let format, let arguments else { return }
  let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
  var buffer = [CChar](repeating: 0, count: 1024)
  _ = buffer.withUnsafeMutableBufferPointer { pointer in
    vsnprintf(pointer.baseAddress, pointer.count, format, arguments)
  }
  let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
  var message = String(decoding: bytes, as: UTF8.self)
  while message.last == "\n" { message.removeLast() }
  // The one line each stream hand-over makes libmicrohttpd write (see HTTPStream.read).
  if context.isStandInFailure(message) { return }
  context.log(message)
}

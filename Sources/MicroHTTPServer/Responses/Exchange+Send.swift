internal import CMicroHTTPD
import Synchronization

extension Exchange {
  /// Turns `response` into an MHD response and queues it. With `close`, or while the server is
  /// stopping, the connection is closed after the answer (`Connection: close`). A status outside
  /// 200...999 (1xx cannot be a final answer here) is sent as 500.
  func send(_ response: HTTPResponse, close: Bool) -> MHD_Result {
    let closing = close || context.stopping.load(ordering: .relaxed)
    if let prepared = response.preparedForm, !closing {
      return MHD_queue_response(connection, prepared.status, prepared.response)
    }
    let status = (200...999).contains(response.status) ? response.status : 500
    let mhdResponse: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
      // MUST_COPY: one copy into memory MHD owns. Handing MHD the array's own storage would
      // need a pointer that outlives withUnsafeBytes, which Swift does not promise.
      mhdResponse = bytes.withUnsafeBytes { raw in
        MHD_create_response_from_buffer(
          raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress),
          MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
      }
    case .buffer(let buffer):
      // MHD holds a reference while it sends, and lets go through releaseBodyBuffer.
      let retained = Unmanaged.passRetained(buffer).toOpaque()
      mhdResponse = MHD_create_response_from_buffer_with_free_callback_cls(
        buffer.count, UnsafeMutableRawPointer(mutating: buffer.start), releaseBodyBuffer, retained)
      if mhdResponse == nil { Unmanaged<BodyBuffer>.fromOpaque(retained).release() }
    case .stream(let stream) where request.method == "HEAD":
      // The head of a stream and nothing else (RFC 9110 §9.3.2): the stream is over before it
      // starts, and the answer ends by closing the connection (see `cmhd_end_by_close`).
      if stream.markReleased() { stream.ended(in: nil) }
      mhdResponse = MHD_create_response_from_callback(
        cmhd_size_unknown(), 1, mhdEndAtOnce, nil, nil)
      if let mhdResponse { _ = cmhd_end_by_close(mhdResponse) }
    case .stream(let stream):
      // Chunked (HTTP/1.1): it may leave libmicrohttpd once its head is sent (see HTTPStream).
      let chunked = request.isHTTP11
      guard
        context.streams.attach(
          stream, to: UnsafeHandle(pointer: connection), server: context, mayHandOff: chunked,
          keepAlive: chunked && !closing && !asksToClose())
      else {
        context.log("an HTTPStream was returned in more than one response")
        return send(Self.internalError, close: true)
      }
      let binding = StreamBinding(stream: stream, server: context)
      let retained = Unmanaged.passRetained(binding).toOpaque()
      mhdResponse = MHD_create_response_from_callback(
        cmhd_size_unknown(), streamBlockSize, mhdStreamRead, retained, mhdStreamFree)
      if mhdResponse == nil {
        // MHD never took the binding: drop it ourselves (this runs onClose).
        Unmanaged<StreamBinding>.fromOpaque(retained).takeRetainedValue().released()
      }
    }
    guard let mhdResponse else {
      context.log("cannot create a response (out of memory?)")
      return MHD_Result.NO
    }
    if !Self.addHeaders(of: response, to: mhdResponse) {
      context.log("dropped a response header with an invalid name or value")
    }
    if closing {
      _ = MHD_add_response_header(mhdResponse, "Connection", "close")
    }
    let queued = MHD_queue_response(connection, UInt32(status), mhdResponse)
    // MHD keeps its own reference while sending; a stream's free callback runs when it lets go.
    MHD_destroy_response(mhdResponse)
    return queued
  }

  /// Whether the request's `Connection` fields carry the `close` option (RFC 9112 §9.6), which
  /// makes libmicrohttpd close the connection after the answer. Read from the header block,
  /// which MHD keeps while the handler's answer is being queued.
  private func asksToClose() -> Bool {
    guard let block = UnsafeRawPointer(bitPattern: request.blockStart) else { return false }
    for field in request.fields where field.name.length == 10 {
      let name = UnsafeRawBufferPointer(start: block + field.name.offset, count: 10)
      guard name.equalsIgnoringASCIICase("connection") else { continue }
      let value = UnsafeRawBufferPointer(
        start: block + field.value.offset, count: field.value.length)
      for option in value.split(separator: UInt8(ascii: ",")) {
        // An option between optional spaces and tabs.
        var first = option.startIndex
        var end = option.endIndex
        while first < end, option[first] == 0x20 || option[first] == 0x09 { first += 1 }
        while end > first, option[end - 1] == 0x20 || option[end - 1] == 0x09 { end -= 1 }
        if UnsafeRawBufferPointer(rebasing: option[first..<end]).equalsIgnoringASCIICase("close") {
          return true
        }
      }
    }
    return false
  }

  /// Adds the response's own headers and those every response carries; false if MHD refused
  /// one (it is left out, the rest are added).
  static func addHeaders(of response: HTTPResponse, to mhdResponse: OpaquePointer) -> Bool {
    var allAdded = true
    for (name, value) in response.headers.pairs
    where name.utf8.count != 14 || !name.equalsIgnoringASCIICase("Content-Length") {
      // withCString: a native string is handed over in place, not copied into a new array.
      let added = name.withCString { name in
        value.withCString { value in MHD_add_response_header(mhdResponse, name, value) }
      }
      if added == MHD_Result.NO { allAdded = false }
    }
    // No response may be read as another type than it says (a JSON body as HTML, say).
    _ = MHD_add_response_header(mhdResponse, "X-Content-Type-Options", "nosniff")
    return allAdded
  }

  static let internalError = HTTPResponse.problem(
    status: 500, code: "internal_error", title: "Internal Server Error",
    detail: "The server could not produce a response.")
}

/// MHD_ContentReaderFreeCallback for a ``BodyBuffer`` body: MHD is done with it.
private func releaseBodyBuffer(_ cls: UnsafeMutableRawPointer?) {
  guard let cls else { return }
  Unmanaged<BodyBuffer>.fromOpaque(cls).release()
}

/// MHD_ContentReaderCallback of a body that has ended before its first byte.
private func mhdEndAtOnce(
  _ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?,
  _ capacity: Int
) -> Int {
  cmhd_content_reader_end_of_stream()
}

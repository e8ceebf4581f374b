internal import CMicroHTTPD

/// A response that is the same every time (a health check, a static file), turned into a
/// libmicrohttpd response once and queued as it is for every request it answers: no body copy,
/// no header strings copied per request. MHD counts its references, so one response may be
/// queued on many connections at once (microhttpd.h, "if a struct MHD_Response object is
/// re-used").
final class PreparedResponse: @unchecked Sendable {
  // @unchecked: `response` is written once, in init, and only read (queued) afterwards.
  let response: OpaquePointer
  let status: UInt32

  /// Nil when MHD cannot make it (out of memory, or a header it refuses): the caller then builds
  /// the response per request as usual.
  init?(_ source: HTTPResponse) {
    guard case .bytes(let body) = source.body, (200...999).contains(source.status) else {
      return nil
    }
    let made = body.withUnsafeBytes { raw in
      MHD_create_response_from_buffer(
        raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress),
        MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
    }
    guard let made else { return nil }
    guard Exchange.addHeaders(of: source, to: made) else {
      MHD_destroy_response(made)
      return nil
    }
    response = made
    status = UInt32(source.status)
  }

  deinit {
    MHD_destroy_response(response)
  }
}

extension HTTPResponse {
  /// This response, to be sent the same way every time: build it once (as a constant) and return
  /// it from a handler; the server then skips turning it into bytes per request.
  public func prepared() -> HTTPResponse {
    var copy = self
    copy.preparedForm = PreparedResponse(self)
    return copy
  }
}

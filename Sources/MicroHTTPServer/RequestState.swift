/// One request's state while MHD reads it, owned through `*con_cls`: created (retained) in the
/// URI log callback, released in the request-completed callback. Only the connection's worker
/// thread touches it.
final class RequestState {
  /// The request target exactly as received ("/path?query").
  let target: String
  /// The access handler has seen the headers (its first call).
  var started = false
  /// Counted in the server's in-flight requests (undone when completed).
  var counted = false
  var method = ""
  var headers = HTTPHeaders()
  var body: [UInt8] = []
  /// The body passed `maxBodyBytes`: what follows is discarded and the answer is 413.
  var tooLarge = false
  /// Bytes received and dropped after `tooLarge`.
  var discarded = 0

  // Filled while the headers are iterated, for RequestFraming.
  var contentLengths: [String] = []
  var transferEncodings: [String] = []

  init(target: String) {
    self.target = target
  }
}

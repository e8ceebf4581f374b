/// Answers requests. The server calls `handle` on its worker threads, concurrently, once a
/// request's whole body has arrived.
public protocol HTTPHandler: Sendable {
  /// Called on MHD's worker threads once the whole body has arrived. Synchronous on purpose (no
  /// async hop per request): keep it short, and hand long-lived output to an ``HTTPStream``.
  func handle(_ request: consuming HTTPRequest) -> HTTPResponse

  /// See the default implementation: nil unless the handler knows constant answers.
  func constantResponse(method: String, target: String) -> ConstantResponse?

  /// Told of a request the server answered itself, before any route saw it: a refusal of its
  /// framing or fields (400, 413, 421, 431, 501). `method` is empty when the request line was
  /// never handed over (libmicrohttpd refused the request on its own).
  func recordRefusal(method: String, status: Int)
}

extension HTTPHandler {
  /// The answer to `method` on `target` when it is the same whatever else the request holds
  /// (a health check, a static file), so that the server can send it without building the
  /// request. Nil: build the request and call `handle`.
  public func constantResponse(method: String, target: String) -> ConstantResponse? { nil }

  /// Ignores refusals.
  public func recordRefusal(method: String, status: Int) {}
}

/// An answer that is the same for every request it answers (a health check, a static file),
/// made once: a reference, so that handing it to the server per request copies nothing.
public final class ConstantResponse: Sendable {
  public let response: HTTPResponse
  /// What the server queues (nil when MHD could not prepare it: then `response` is sent).
  let prepared: PreparedResponse?

  /// `response`, prepared (see ``HTTPResponse/prepared()``) if it is not already.
  public init(_ response: HTTPResponse) {
    self.response = response.preparedForm == nil ? response.prepared() : response
    self.prepared = self.response.preparedForm
  }
}

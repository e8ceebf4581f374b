/// Answers requests. The server calls `handle` on its worker threads, concurrently, once a
/// request's whole body has arrived.
public protocol HTTPHandler: Sendable {
  /// Called on MHD's worker threads once the whole body has arrived. Synchronous on purpose (no
  /// async hop per request): keep it short, and hand long-lived output to an ``HTTPStream``.
  func handle(_ request: HTTPRequest) -> HTTPResponse
}

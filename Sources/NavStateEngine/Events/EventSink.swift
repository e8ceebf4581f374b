/// Where a session's events go as they happen: an open event stream, which the HTTP layer makes
/// (see ``SessionStore/subscribe(_:client:prepare:makeSink:)``). The engine hands it bytes already
/// framed as Server-Sent Events.
public protocol EventSink: AnyObject, Sendable {
  /// Queues bytes; false when the client is gone or too slow, and the sink is then dropped.
  @discardableResult
  func write(_ bytes: [UInt8]) -> Bool
  /// Ends the stream (its session ended).
  func finish()
}

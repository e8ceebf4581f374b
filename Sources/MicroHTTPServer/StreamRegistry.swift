/// The server's open streams, so shutdown can finish and abort them. Touched only when a stream
/// starts or ends, never on the plain request path.
final class StreamRegistry: Sendable {
  private struct Contents: Sendable {
    var streams: [ObjectIdentifier: HTTPStream] = [:]
    /// Set by shutdown once it has aborted every stream: streams attached later start aborted.
    var aborting = false
  }

  private let contents = Locked(Contents())

  /// Records a stream that is about to be sent on `connection`. Returns false if the stream is
  /// already the body of another response.
  func attach(_ stream: HTTPStream, to connection: UnsafeHandle) -> Bool {
    contents.withLock { contents in
      guard stream.attach(to: connection, abortNow: contents.aborting) else { return false }
      contents.streams[ObjectIdentifier(stream)] = stream
      return true
    }
  }

  func remove(_ stream: HTTPStream) {
    _ = contents.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
  }

  var count: Int {
    contents.withLock { $0.streams.count }
  }

  /// Asks every open stream to end after what it has buffered.
  func finishAll() {
    for stream in snapshot(markAborting: false) {
      stream.finish()
    }
  }

  /// Makes every open stream, and any attached from now on, end with an error at its next read,
  /// resuming the suspended ones. After this returns no stream will call MHD_resume_connection.
  func abortAll() {
    for stream in snapshot(markAborting: true) {
      stream.abort()
    }
  }

  private func snapshot(markAborting: Bool) -> [HTTPStream] {
    contents.withLock { contents in
      if markAborting { contents.aborting = true }
      return Array(contents.streams.values)
    }
  }
}

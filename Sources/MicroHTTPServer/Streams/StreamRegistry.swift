#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// POLLRDHUP (Linux's value), which Glibc's headers show only under _GNU_SOURCE.
private let pollPeerClosed: Int16 = 0x2000

/// The server's open streams, so shutdown can finish and abort them. Touched only when a stream
/// starts or ends, never on the plain request path.
final class StreamRegistry: Sendable {
  private struct Contents: Sendable {
    var streams: [ObjectIdentifier: HTTPStream] = [:]
    /// Those still in libmicrohttpd (not handed over to a stream loop): the ones
    /// ``closeAbandoned()`` looks at.
    var inLibrary: [ObjectIdentifier: HTTPStream] = [:]
    /// Set by shutdown once it has aborted every stream: streams attached later start aborted.
    var aborting = false
  }

  private let contents = Locked(Contents())

  /// Records a stream that is about to be sent on `connection`. Returns false if the stream is
  /// already the body of another response.
  func attach(
    _ stream: HTTPStream, to connection: UnsafeHandle, server: ServerContext, mayHandOff: Bool,
    keepAlive: Bool
  ) -> Bool {
    contents.withLock { contents in
      guard
        stream.attach(
          to: connection, server: server, mayHandOff: mayHandOff, keepAlive: keepAlive,
          abortNow: contents.aborting)
      else { return false }
      contents.streams[ObjectIdentifier(stream)] = stream
      contents.inLibrary[ObjectIdentifier(stream)] = stream
      return true
    }
  }

  /// The stream left libmicrohttpd: its loop watches its socket from now on.
  func handedOver(_ stream: HTTPStream) {
    _ = contents.withLock { $0.inLibrary.removeValue(forKey: ObjectIdentifier(stream)) }
  }

  func remove(_ stream: HTTPStream) {
    contents.withLock { contents in
      contents.streams.removeValue(forKey: ObjectIdentifier(stream))
      contents.inLibrary.removeValue(forKey: ObjectIdentifier(stream))
    }
  }

  var count: Int {
    contents.withLock { $0.streams.count }
  }

  /// Open streams still in libmicrohttpd (not handed over to a stream loop).
  var inLibraryCount: Int {
    contents.withLock { $0.inLibrary.count }
  }

  /// Asks every open stream to end after what it has buffered.
  func finishAll() {
    for stream in snapshot(markAborting: false) {
      stream.finish()
    }
  }

  /// Makes every open stream, and any attached from now on, end with an error at its next read
  /// or send, resuming the suspended ones. After this returns no stream will call
  /// MHD_resume_connection.
  func abortAll() {
    for stream in snapshot(markAborting: true) {
      stream.abort()
    }
  }

  /// Ends the streams parked in libmicrohttpd whose client has gone: its socket was closed or
  /// reset by the peer. A suspended connection is not polled by libmicrohttpd, so without this
  /// a gone client is found only by the next write (a heartbeat, up to its interval later, and
  /// a second one, as the first write to a closed socket still succeeds). Streams handed over to
  /// a stream loop are watched there (epoll) and not looked at. Called about once a second by the
  /// sweeper; one `poll` over every parked socket. Returns how many streams it ended.
  @discardableResult
  func closeAbandoned() -> Int {
    let streams = contents.withLock { Array($0.inLibrary.values) }
    guard !streams.isEmpty else { return 0 }
    var parked: [HTTPStream] = []
    var descriptors: [pollfd] = []
    for stream in streams {
      guard let descriptor = stream.parkedDescriptor else { continue }
      parked.append(stream)
      // POLLRDHUP: the peer closed its side (a FIN); POLLHUP and POLLERR are always reported.
      descriptors.append(pollfd(fd: descriptor, events: pollPeerClosed, revents: 0))
    }
    guard !descriptors.isEmpty else { return 0 }
    let ready = descriptors.withUnsafeMutableBufferPointer { buffer in
      poll(buffer.baseAddress, nfds_t(buffer.count), 0)
    }
    guard ready > 0 else { return 0 }
    let gone = pollPeerClosed | Int16(POLLHUP) | Int16(POLLERR)
    var ended = 0
    for (index, entry) in descriptors.enumerated() where entry.revents & gone != 0 {
      if parked[index].abortIfParked() { ended += 1 }
    }
    return ended
  }

  private func snapshot(markAborting: Bool) -> [HTTPStream] {
    contents.withLock { contents in
      if markAborting { contents.aborting = true }
      return Array(contents.streams.values)
    }
  }
}

/// A streaming body whose producer may be idle for a long time (e.g. server-sent events).
///
/// While its buffer is empty the connection is suspended (MHD_suspend_connection from the content
/// reader), so an idle stream costs no CPU; ``write(_:)`` and ``finish()`` resume it. All methods
/// are thread-safe.
///
/// While suspended, libmicrohttpd does not watch the socket: the server's sweeper polls parked
/// streams about once a second and ends those whose client closed the connection
/// (``StreamRegistry/closeAbandoned()``). A client that vanished without closing (a pulled cable)
/// is found by the next write that fails, so a producer should still write heartbeats.
public final class HTTPStream: Sendable {
  /// Most bytes that may wait unsent; a write beyond it closes the stream (the client is too
  /// slow) and returns false.
  public let maxBufferedBytes: Int
  let onClose: @Sendable () -> Void
  let state = Locked(State())

  /// - Parameter onClose: called exactly once, on a server thread, when the response is done:
  ///   finished, client gone, or server stopping. Not called for a stream never returned in a
  ///   response.
  public init(maxBufferedBytes: Int = 1 << 20, onClose: @escaping @Sendable () -> Void = {}) {
    self.maxBufferedBytes = max(1, maxBufferedBytes)
    self.onClose = onClose
  }

  /// Queues `bytes` for sending. Returns false once the stream is closed (client gone, server
  /// stopping, buffer overflow) or finished: the producer should drop it then.
  @discardableResult
  public func write(_ bytes: [UInt8]) -> Bool {
    state.withLock { state in
      guard !state.isClosed, !state.finished else { return false }
      guard !bytes.isEmpty else { return true }
      if state.buffered + bytes.count > maxBufferedBytes {
        state.abort()
        return false
      }
      state.pending.append(contentsOf: bytes)
      state.resumeIfSuspended()
      return true
    }
  }

  /// Ends the body once what is buffered has been sent. Further writes return false.
  public func finish() {
    state.withLock { state in
      guard !state.isClosed, !state.finished else { return }
      state.finished = true
      state.resumeIfSuspended()
    }
  }

  /// True once the response is over (or being torn down): writes are dropped.
  public var isClosed: Bool {
    state.withLock { $0.isClosed }
  }
}

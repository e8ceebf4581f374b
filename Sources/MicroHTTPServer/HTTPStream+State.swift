internal import CMicroHTTPD

extension HTTPStream {
  /// Everything a stream shares between its producer and the MHD worker that sends it, guarded by
  /// the stream's mutex.
  ///
  /// Suspension protocol: only the content reader suspends, and only with the lock held and the
  /// buffer empty, setting `suspended`. Whoever clears `suspended` (a write, finish, abort) must
  /// call MHD_resume_connection, also with the lock held. So a write can never slip between "buffer
  /// is empty" and "suspend", a connection is resumed exactly once per suspension, and shutdown,
  /// which aborts every stream under its lock, knows no resume is still on its way afterwards.
  struct State: Sendable {
    var pending: [UInt8] = []
    var readOffset = 0
    var finished = false
    /// The reader must end the body with an error: server stopping or the client is too slow.
    var aborted = false
    /// MHD destroyed the response; nothing will read again.
    var released = false
    var suspended = false
    /// Set once the stream is attached to a response; nil after release.
    var connection: UnsafeHandle?
    /// The connection's socket, read while the connection is suspended (see
    /// ``StreamRegistry/closeAbandoned()``); -1 if unknown.
    var descriptor: Int32 = -1
    var attached = false

    var isClosed: Bool { aborted || released }
    var buffered: Int { pending.count - readOffset }

    mutating func resumeIfSuspended() {
      guard suspended, let connection else { return }
      suspended = false
      MHD_resume_connection(connection.pointer)
    }

    mutating func abort() {
      guard !isClosed else { return }
      aborted = true
      pending = []
      readOffset = 0
      resumeIfSuspended()
    }
  }

  /// Binds the stream to the connection that will send it. False if it already was (one stream
  /// can only be the body of one response).
  func attach(to connection: UnsafeHandle, abortNow: Bool) -> Bool {
    state.withLock { state in
      guard !state.attached else { return false }
      state.attached = true
      state.connection = connection
      state.descriptor = cmhd_connection_fd(connection.pointer)
      if abortNow { state.abort() }
      return true
    }
  }

  /// Ends the body with an error at the next read (server stopping) and wakes the connection.
  func abort() {
    state.withLock { $0.abort() }
  }

  /// The socket of a connection parked with nothing to send, else nil. While suspended, MHD
  /// neither reads nor closes it, and only this stream's lock resumes it, so the number stays
  /// this connection's until the stream is woken.
  var parkedDescriptor: Int32? {
    state.withLock { state in
      state.suspended && state.descriptor >= 0 ? state.descriptor : nil
    }
  }

  /// Aborts the stream if it is still parked (nothing was written to it meanwhile, which would
  /// find out about the client by itself). True if it was aborted.
  func abortIfParked() -> Bool {
    state.withLock { state in
      guard state.suspended, !state.isClosed else { return false }
      state.abort()
      return true
    }
  }

  /// The content reader: copies buffered bytes into MHD's buffer, or reports the end, or suspends
  /// the connection while there is nothing to send. Called on the connection's worker thread.
  func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
    state.withLock { state in
      if state.aborted { return cmhd_content_reader_end_with_error() }
      let available = state.buffered
      if available > 0 {
        let count = min(available, capacity)
        state.pending.withUnsafeBytes { bytes in
          if let base = bytes.baseAddress {
            buffer.copyMemory(from: base + state.readOffset, byteCount: count)
          }
        }
        state.readOffset += count
        if state.readOffset == state.pending.count {
          state.pending.removeAll(keepingCapacity: state.pending.capacity <= 16 * 1024)
          state.readOffset = 0
        } else if state.readOffset >= 64 * 1024 {
          state.pending.removeFirst(state.readOffset)
          state.readOffset = 0
        }
        return count
      }
      if state.finished { return cmhd_content_reader_end_of_stream() }
      guard let connection = state.connection else {
        return cmhd_content_reader_end_with_error()
      }
      // Nothing to send yet: park the connection until write/finish/abort resumes it.
      // Returning 0 without suspending would make MHD call again at once (a busy loop).
      state.suspended = true
      MHD_suspend_connection(connection.pointer)
      return 0
    }
  }

  /// MHD destroyed the response (sent, client gone, or daemon stopping). Returns true the first
  /// time, so the caller runs `onClose` exactly once.
  func markReleased() -> Bool {
    state.withLock { state in
      guard !state.released else { return false }
      state.released = true
      state.suspended = false
      state.connection = nil
      state.descriptor = -1
      state.pending = []
      state.readOffset = 0
      return true
    }
  }
}

internal import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension HTTPStream {
  /// Everything a stream shares between its producer, the MHD worker that starts sending it and
  /// the stream loop that sends it afterwards, guarded by the stream's mutex.
  ///
  /// **In libmicrohttpd.** Only the content reader suspends, and only with the lock held and the
  /// buffer empty, setting `suspended`. Whoever clears `suspended` (a write, finish, abort) must
  /// call MHD_resume_connection, also with the lock held. So a write can never slip between
  /// "buffer is empty" and "suspend", a connection is resumed exactly once per suspension, and
  /// shutdown, which aborts every stream under its lock, knows no resume is still on its way
  /// afterwards.
  ///
  /// **Handed over.** When the reader finds nothing to send on a stream that may leave
  /// (`mayHandOff`: HTTP/1.1, so chunked), it takes the socket (see `cmhd_take_socket`), sets
  /// `socket` and `handedOff`, and from then on `head` and `rest` hold bytes as they go on the
  /// wire (chunk framing included), sent by the stream's loop thread. Only that thread sends on
  /// the socket or closes it; a producer queues and `schedule`s.
  struct State: Sendable {
    /// In libmicrohttpd: the bytes written and not yet copied out by the content reader.
    var pending: [UInt8] = []
    var readOffset = 0
    /// Handed over: the chunk being sent (often shared with other streams: see StreamChunk),
    /// how much of it is sent, and what was written after it, copied together.
    var head: [UInt8] = []
    var headOffset = 0
    var rest: [UInt8] = []
    var finished = false
    /// The stream must end with an error: server stopping or the client is too slow.
    var aborted = false
    /// The response is over: `onClose` has run or is about to, nothing more is sent.
    var ended = false
    /// MHD destroyed the response (for a handed-over stream, that is not its end).
    var released = false
    var suspended = false
    /// Set once the stream is attached to a response; nil once MHD let go of it.
    var connection: UnsafeHandle?
    /// The connection's socket as libmicrohttpd numbers it, read while the connection is
    /// suspended (see ``StreamRegistry/closeAbandoned()`` and the hand-over); -1 if unknown.
    var descriptor: Int32 = -1
    var attached = false
    /// The server it is sent by, from attach on.
    var server: ServerContext?
    /// The stream may leave libmicrohttpd once its head is sent: an HTTP/1.1 response (chunked),
    /// not a HEAD.
    var mayHandOff = false
    /// After its last chunk, the connection goes back to libmicrohttpd for the client's next
    /// request (HTTP/1.1 without `Connection: close`, server not stopping).
    var keepAlive = false
    /// The socket was taken over from libmicrohttpd.
    var handedOff = false
    /// The socket while this stream owns it; -1 before the hand-over and once closed.
    var socket: Int32 = -1
    /// The connection whose socket it took over: it holds that connection's place in the
    /// registry's counts until it ends.
    var heldConnection: ConnectionState?
    /// The loop that writes it, and its place in that loop's epoll set (-1: not yet in it).
    var loop: StreamLoop?
    var slot: Int32 = -1
    /// In the loop's queue of streams to serve.
    var queued = false
    /// The socket's send buffer was full: the loop waits for it to become writable.
    var awaitingWritable = false

    var isClosed: Bool { aborted || ended }
    /// Bytes written and not sent yet.
    var buffered: Int { pending.count - readOffset + head.count - headOffset + rest.count }
    var ownsSocket: Bool { socket >= 0 }

    mutating func resumeIfSuspended() {
      guard suspended, let connection else { return }
      suspended = false
      MHD_resume_connection(connection.pointer)
    }

    mutating func abort(_ stream: HTTPStream) {
      guard !isClosed else { return }
      aborted = true
      dropBuffered()
      if ownsSocket {
        schedule(stream)
      } else {
        resumeIfSuspended()
      }
    }

    /// Queues the stream for its loop thread (which sends, or closes), unless it is queued
    /// already or waits for its socket to become writable (the loop serves it then).
    mutating func schedule(_ stream: HTTPStream) {
      guard !queued, !awaitingWritable || aborted, let loop else { return }
      queued = true
      loop.enqueue(stream)
    }

    /// Queues wire bytes behind what waits already: by reference when nothing does (the
    /// common case, an event to an idle stream), else copied after it.
    mutating func queue(_ bytes: [UInt8]) {
      if headOffset == head.count && rest.isEmpty {
        head = bytes
        headOffset = 0
      } else {
        rest.append(contentsOf: bytes)
      }
    }

    mutating func dropBuffered() {
      pending = []
      readOffset = 0
      head = []
      headOffset = 0
      rest = []
    }
  }

  /// Binds the stream to the connection that will send it. False if it already was (one stream
  /// can only be the body of one response).
  func attach(
    to connection: UnsafeHandle, server: ServerContext, mayHandOff: Bool, keepAlive: Bool,
    abortNow: Bool
  ) -> Bool {
    state.withLock { state in
      guard !state.attached else { return false }
      state.attached = true
      state.connection = connection
      state.server = server
      state.mayHandOff = mayHandOff
      state.keepAlive = keepAlive
      state.descriptor = cmhd_connection_fd(connection.pointer)
      if abortNow { state.abort(self) }
      return true
    }
  }

  /// Ends the body with an error at the next read or send (server stopping) and wakes the
  /// connection.
  func abort() {
    state.withLock { $0.abort(self) }
  }

  /// The socket of a connection parked in libmicrohttpd with nothing to send, else nil. While
  /// suspended, MHD neither reads nor closes it, and only this stream's lock resumes it, so the
  /// number stays this connection's until the stream is woken.
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
      state.abort(self)
      return true
    }
  }

  /// The content reader: copies buffered bytes into MHD's buffer, or reports the end, or, with
  /// nothing to send, hands the socket over to a stream loop or suspends the connection. Called
  /// on the connection's worker thread.
  func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
    var handedTo: ServerContext?
    let result = state.withLock { state in
      if state.handedOff {
        // Resumed after the hand-over: libmicrohttpd ends its side of the response. It sends
        // the last chunk to the stand-in socket, which fails (one log line, dropped), and
        // frees the connection at once.
        state.server?.expectStandInFailure()
        return cmhd_content_reader_end_of_stream()
      }
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
          // Not kept: an idle stream should hold no buffer (its next write allocates one).
          state.pending = []
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
      // Nothing to send yet: park the connection until write/finish/abort resumes it, or hand
      // the socket over. Returning 0 without suspending would make MHD call again at once.
      MHD_suspend_connection(connection.pointer)
      if state.mayHandOff, let server = state.server, let loop = server.sockets.loopForNewStream(),
        case let socket = cmhd_take_socket(state.descriptor, server.sockets.standIn), socket >= 0
      {
        _ = cmhd_set_nodelay(socket)
        state.handedOff = true
        state.socket = socket
        state.loop = loop
        if let raw = cmhd_socket_context(connection.pointer) {
          let held = Unmanaged<ConnectionState>.fromOpaque(raw).takeUnretainedValue()
          held.handOverToStream()
          state.heldConnection = held
        }
        handedTo = server
        // libmicrohttpd finishes its side when it calls the reader again (above).
        MHD_resume_connection(connection.pointer)
        // The loop puts the socket in its epoll set (to see the client leave) and sends
        // whatever is written from now on.
        state.schedule(self)
        return 0
      }
      state.suspended = true
      return 0
    }
    // Told outside the stream's lock: the registry's lock is taken first elsewhere (attach).
    handedTo?.streams.handedOver(self)
    return result
  }

  /// MHD destroyed the response (sent, client gone, daemon stopping, or handed over). Returns
  /// true if that ends the stream, the first time: the caller runs ``ended()``.
  func markReleased() -> Bool {
    state.withLock { state in
      state.released = true
      state.suspended = false
      state.connection = nil
      state.descriptor = -1
      guard !state.handedOff, !state.ended else { return false }
      state.ended = true
      state.dropBuffered()
      return true
    }
  }

  /// The stream is over (its `ended` is set): runs `onClose`, then forgets the stream, so that a
  /// server waiting for its streams to end sees them gone only once their `onClose` has run.
  func ended(in server: ServerContext?, releasing connection: ConnectionState? = nil) {
    onClose()
    server?.streams.remove(self)
    if let connection { server?.connections.streamEnded(connection) }
  }

  /// What the loop thread must do once it has let go of the stream's lock.
  struct Ending {
    /// The socket to hand back to libmicrohttpd for the client's next request, if any.
    var giveBack: Int32?
    var server: ServerContext?
    var connection: ConnectionState?
  }

  /// Serves the stream on its loop thread: joins the loop's epoll set the first time, sends what
  /// is pending, and closes the socket when the stream is done (finished and sent, aborted, or
  /// the client gone). Returns how it ended, if it did.
  func serve(on loop: StreamLoop, peerGone: Bool) -> Ending? {
    state.withLock { state -> Ending? in
      state.queued = false
      guard state.ownsSocket, !state.ended else { return nil }
      if state.slot < 0 {
        state.slot = loop.register(self, socket: state.socket)
        if state.slot < 0 { return closeSocket(&state, on: loop, giveBack: false) }
      }
      if state.aborted || peerGone { return closeSocket(&state, on: loop, giveBack: false) }
      while true {
        if state.headOffset == state.head.count {
          guard !state.rest.isEmpty else { break }
          state.head = state.rest
          state.headOffset = 0
          state.rest = []
        }
        let sent = state.head.withUnsafeBytes { bytes in
          send(
            state.socket, bytes.baseAddress! + state.headOffset, bytes.count - state.headOffset,
            Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
        }
        if sent > 0 {
          state.headOffset += sent
          continue
        }
        let error = errno
        if sent < 0 && error == EINTR { continue }
        if sent < 0 && (error == EAGAIN || error == EWOULDBLOCK) {
          if !state.awaitingWritable {
            state.awaitingWritable = true
            loop.watch(state.socket, slot: state.slot, writable: true)
          }
          return nil
        }
        return closeSocket(&state, on: loop, giveBack: false)  // the client is gone
      }
      // All sent: an idle stream keeps no buffer (nor a reference to a shared chunk).
      state.head = []
      state.headOffset = 0
      if state.awaitingWritable {
        state.awaitingWritable = false
        loop.watch(state.socket, slot: state.slot, writable: false)
      }
      if state.finished { return closeSocket(&state, on: loop, giveBack: state.keepAlive) }
      return nil
    }
  }

  /// Takes the socket out of the loop and ends the stream: the socket is closed (its peer sees
  /// the end, or a body cut short), or returned for the caller to hand back to libmicrohttpd.
  private func closeSocket(_ state: inout State, on loop: StreamLoop, giveBack: Bool) -> Ending {
    let socket = state.socket
    if state.slot >= 0 { loop.unregister(socket, slot: state.slot) }
    state.slot = -1
    state.socket = -1
    state.ended = true
    state.dropBuffered()
    let server = state.server
    let keep = giveBack && server?.stopping.load(ordering: .relaxed) == false
    if !keep {
      // As libmicrohttpd closes: no more bytes from us, then the descriptor.
      _ = shutdown(socket, Int32(SHUT_WR))
      _ = close(socket)
    }
    let connection = state.heldConnection
    state.heldConnection = nil
    return Ending(giveBack: keep ? socket : nil, server: server, connection: connection)
  }
}

/// A streaming body whose producer may be idle for a long time (e.g. server-sent events).
///
/// A stream starts in libmicrohttpd, which sends the response's head and what was written before
/// it (the content reader copies it out, and suspends the connection while there is nothing to
/// send, so an idle stream costs no CPU). Once that is sent, an HTTP/1.1 stream leaves
/// libmicrohttpd: its socket is taken over by the server's stream loops (``StreamSockets``),
/// which write each later ``write(_:)`` as a chunk straight to the socket and notice at once when
/// the client closes its connection. libmicrohttpd then frees the connection and its memory
/// pool, so an open idle stream holds only this object and its subscription (see
/// docs/performance.md for the figures). A stream that cannot leave (an HTTP/1.0 request) stays
/// suspended in libmicrohttpd as before, and the server's sweeper polls it about once a second
/// for a client that closed (``StreamRegistry/closeAbandoned()``). All methods are thread-safe.
///
/// A client that vanished without closing (a pulled cable) is found by the next write that
/// fails, so a producer should still write heartbeats.
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
    write(count: bytes.count, framed: { StreamChunk(bytes).framed }, payload: { bytes })
  }

  /// Queues a chunk for sending, as ``write(_:)-([UInt8])`` does its bytes. A stream with
  /// nothing else waiting keeps a reference to the chunk's bytes rather than a copy, so writing
  /// one chunk to many streams (an event to every subscriber) frames it once.
  @discardableResult
  public func write(_ chunk: StreamChunk) -> Bool {
    write(count: chunk.payload.count, framed: { chunk.framed }, payload: { chunk.payload })
  }

  /// A write of `count` bytes: framed for a socket this stream owns, as they are for
  /// libmicrohttpd (which frames them itself).
  private func write(count: Int, framed: () -> [UInt8], payload: () -> [UInt8]) -> Bool {
    state.withLock { state in
      guard !state.isClosed, !state.finished else { return false }
      guard count > 0 else { return true }
      if state.buffered + count > maxBufferedBytes {
        state.abort(self)
        return false
      }
      if state.ownsSocket {
        state.queue(framed())
        state.schedule(self)
      } else {
        state.pending.append(contentsOf: payload())
        state.resumeIfSuspended()
      }
      return true
    }
  }

  /// Ends the body once what is buffered has been sent. Further writes return false.
  public func finish() {
    state.withLock { state in
      guard !state.isClosed, !state.finished else { return }
      state.finished = true
      if state.ownsSocket {
        state.queue(StreamChunk.last)
        state.schedule(self)
      } else {
        state.resumeIfSuspended()
      }
    }
  }

  /// Bytes written and not yet sent: a producer that can wait (a feed) writes more only as
  /// this falls.
  public var unsentBytes: Int {
    state.withLock { $0.buffered }
  }

  /// True once the response is over (or being torn down): writes are dropped.
  public var isClosed: Bool {
    state.withLock { $0.isClosed }
  }
}

/// Bytes for ``HTTPStream/write(_:)-(StreamChunk)``, with their chunked transfer coding's framing
/// (size in hex, CRLF, the bytes, CRLF) made once, however many streams they are written to.
public struct StreamChunk: Sendable {
  /// The bytes as the client reads them.
  public let payload: [UInt8]
  /// The same as a chunk of a chunked body.
  let framed: [UInt8]

  public init(_ bytes: [UInt8]) {
    payload = bytes
    var framed: [UInt8] = []
    framed.reserveCapacity(bytes.count + 12)
    var digits = 1
    while bytes.count >> (4 * digits) > 0 { digits += 1 }
    for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
      framed.append(Self.hexDigits[(bytes.count >> shift) & 0xF])
    }
    framed.append(0x0D)
    framed.append(0x0A)
    framed.append(contentsOf: bytes)
    framed.append(0x0D)
    framed.append(0x0A)
    self.framed = framed
  }

  /// The chunked body's end: a chunk of size 0 and no trailer.
  static let last: [UInt8] = Array("0\r\n\r\n".utf8)
  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

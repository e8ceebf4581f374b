import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One open connection as the deadline sweeper sees it: which part of a request it is in, and by
/// when that part must be over.
///
/// The phase and its deadline live in one atomic word, so that a worker thread moving on and the
/// sweeper timing the connection out can never both win: whoever changes the word first decides,
/// and the other sees the change.
final class ConnectionState: Sendable {
  enum Phase: UInt64 {
    /// Accepted, no request line yet. A client may open a connection well before it uses it
    /// (browsers and connection pools do), so this is timed like `idle`.
    case awaitingRequest
    /// A request line arrived; the rest of the headers are due by the deadline.
    case awaitingHeaders
    /// The headers are in; the body is due by a deadline that grows with its size.
    case readingBody
    /// The handler runs or the answer is being sent (a stream may take as long as it likes).
    case processing
    /// Between requests on a kept-alive connection.
    case idle
    /// The sweeper closed it: the worker must drop whatever it was doing.
    case timedOut

    /// Whether a request has begun: a client that timed out then gets a 408; one that has not
    /// begun any is simply closed (a 408 there would be read as the answer to its next request).
    var hasRequest: Bool { self == .awaitingHeaders || self == .readingBody }

    /// The phases in which the client owes the server bytes, and so can be timed out.
    var isWaitingForClient: Bool {
      switch self {
      case .awaitingRequest, .awaitingHeaders, .readingBody, .idle: return true
      case .processing, .timedOut: return false
      }
    }
  }

  /// The socket; used only by the sweeper, and only while the registry holds this state, which
  /// is until libmicrohttpd reports the connection closed (before it closes the descriptor).
  let descriptor: Int32
  private let word: Atomic<UInt64>
  /// Its socket was handed over to an event stream, which now holds the connection's place in
  /// the registry's count (see ``ConnectionRegistry/closed(_:)``).
  private let heldByStream = Atomic<Bool>(false)
  /// The state of the connection's last request, kept for its next one. Touched only by the
  /// connection's worker thread (MHD serves a connection on one thread), and cleared when the
  /// connection closes, which breaks the cycle between the two.
  nonisolated(unsafe) var spareRequest: RequestState?

  private static let phaseShift: UInt64 = 56
  private static let deadlineMask: UInt64 = (1 << phaseShift) - 1

  /// The client's address, for the per-address count (nil when unknown or not counted).
  let address: ClientAddressKey?

  init(descriptor: Int32, deadline: Milliseconds, address: ClientAddressKey? = nil) {
    self.descriptor = descriptor
    self.address = address
    self.word = Atomic(Self.pack(.awaitingRequest, deadline))
  }

  var phase: Phase { Self.unpack(word.load(ordering: .acquiring)).phase }

  /// The connection's socket now belongs to an event stream: libmicrohttpd will report the
  /// connection closed soon, but the socket stays open until the stream ends.
  func handOverToStream() {
    heldByStream.store(true, ordering: .releasing)
  }

  var isHeldByStream: Bool { heldByStream.load(ordering: .acquiring) }

  /// Moves to `phase` with `deadline` (0: none), unless the connection already timed out.
  @discardableResult
  func advance(to phase: Phase, deadline: Milliseconds) -> Bool {
    update { current, _ in current == .timedOut ? nil : (phase, deadline) }
  }

  /// A request line arrived: the rest of its headers are due `headerTimeout` from now.
  func requestLineArrived(now: Milliseconds, headerTimeout: Milliseconds) {
    update { current, _ in
      switch current {
      case .idle, .awaitingRequest: return (.awaitingHeaders, now + headerTimeout)
      default: return nil
      }
    }
  }

  /// Times the connection out if it is waiting for the client past its deadline. Returns the
  /// phase it was in when it did, nil when it did not.
  func expire(now: Milliseconds) -> Phase? {
    var expired: Phase?
    update { current, deadline in
      guard current.isWaitingForClient, deadline != 0, deadline <= now else { return nil }
      expired = current
      return (.timedOut, 0)
    }
    return expired
  }

  /// Compare-and-exchange loop: `change` sees the current phase and deadline and returns the
  /// new ones, or nil to leave them.
  @discardableResult
  private func update(_ change: (Phase, Milliseconds) -> (Phase, Milliseconds)?) -> Bool {
    var current = word.load(ordering: .acquiring)
    while true {
      let (phase, deadline) = Self.unpack(current)
      guard let next = change(phase, deadline) else { return false }
      let (exchanged, original) = word.compareExchange(
        expected: current, desired: Self.pack(next.0, next.1), ordering: .acquiringAndReleasing)
      if exchanged { return true }
      current = original
    }
  }

  private static func pack(_ phase: Phase, _ deadline: Milliseconds) -> UInt64 {
    phase.rawValue << phaseShift | (deadline & deadlineMask)
  }

  private static func unpack(_ word: UInt64) -> (phase: Phase, deadline: Milliseconds) {
    (Phase(rawValue: word >> phaseShift) ?? .timedOut, word & deadlineMask)
  }
}

/// Milliseconds on the monotonic clock (CLOCK_MONOTONIC), which never jumps with the wall clock.
typealias Milliseconds = UInt64

enum MonotonicClock {
  static func now() -> Milliseconds {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
  }

  /// The same clock in nanoseconds, for timing requests (cheaper than `ContinuousClock`, whose
  /// `Duration` arithmetic costs more than the reading).
  static func nanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
  }
}

import Synchronization

/// One request's state while MHD reads it, owned through `*con_cls`: taken (retained) in the
/// URI log callback, released in the request-completed callback, where it is kept by its
/// connection for the next request (see ``reuse(target:targetAddress:targetLength:)``), so a
/// kept-alive connection allocates it once. The connection's worker thread changes it, one
/// callback at a time, so its fields need no run-time exclusivity checks
/// (`@exclusivity(unchecked)`): they cost more than the rest of a small request's bookkeeping.
/// A request that its handler keeps (through ``ReceivedHeaders``) may be read on another thread,
/// but only once the handler has returned: from then on the worker leaves this state alone,
/// since a state someone else still holds is not reused (see `mhdRequestCompleted`).
final class RequestState {
  /// Moves on each time a handler of this state's requests returns, ending the
  /// ``ReceivedHeaders`` views it was given. Atomic: the thread that reads a kept request must
  /// see that its handler returned.
  private let generation = Atomic<Int>(0)
  var handlerGeneration: Int { generation.load(ordering: .acquiring) }
  func handlerReturned() { generation.add(1, ordering: .releasing) }
  /// The MHD connection the request came on, while its handler may read it.
  @exclusivity(unchecked) var mhdConnection: OpaquePointer?
  /// The peer's address, once formatted for this request.
  @exclusivity(unchecked) var peerAddress: String?

  /// The request target as received ("/path?query"), or the origin form of one received in
  /// absolute form (see ``RequestTarget/absoluteForm(_:)``).
  @exclusivity(unchecked) var target: String
  /// The connection it came on; nil only if MHD skipped the connection-notify callback.
  let connection: ConnectionState?
  /// Where MHD's read buffer holds the target, and its length as a C string, for
  /// ``HeaderBlockAudit`` (a NUL in the target makes that length fall short).
  @exclusivity(unchecked) private(set) var targetAddress: UInt
  @exclusivity(unchecked) private(set) var targetLength: Int
  /// The access handler has seen the headers (its first call).
  @exclusivity(unchecked) var started = false
  /// Counted in the server's in-flight requests (undone when completed).
  @exclusivity(unchecked) var counted = false
  @exclusivity(unchecked) var method = ""
  /// The request line says exactly HTTP/1.1 (set with the headers' audit).
  @exclusivity(unchecked) var isHTTP11 = false
  @exclusivity(unchecked) var body: [UInt8] = []
  /// The body passed `maxBodyBytes`: what follows is discarded and the answer is 413.
  @exclusivity(unchecked) var tooLarge = false
  /// Bytes received and dropped after `tooLarge`.
  @exclusivity(unchecked) var discarded = 0

  // Filled while the headers are iterated, for RequestFraming.
  @exclusivity(unchecked) var contentLengths: [String] = []
  @exclusivity(unchecked) var transferEncodings: [String] = []

  // Filled while the headers are iterated, for HeaderBlockAudit and the Host checks.
  @exclusivity(unchecked) var blockStart: UInt = 0
  @exclusivity(unchecked) var fields: [HeaderBlockAudit.Field] = []
  /// Bit `n % 64` set when a field name of `n` bytes was received: most lookups are for fields
  /// a request does not carry (`Idempotency-Key`, `If-Match`, `Prefer`), answered by one test.
  @exclusivity(unchecked) var nameLengths: UInt64 = 0
  /// This request's body limit (the server's, or a larger one for its route).
  @exclusivity(unchecked) var maxBodyBytes = 0
  @exclusivity(unchecked) var hostCount = 0
  @exclusivity(unchecked) var authorizationCount = 0
  /// Where the (first) Host field's value lies in the block.
  @exclusivity(unchecked) var host = HeaderBlockAudit.Span(offset: 0, length: 0)

  init(
    target: String, connection: ConnectionState? = nil, targetAddress: UInt = 0,
    targetLength: Int = 0
  ) {
    self.target = target
    self.connection = connection
    self.targetAddress = targetAddress
    self.targetLength = targetLength
  }

  /// Ready for the next request on the same connection: every field as new, but the header
  /// fields' buffer keeps its capacity (unless an unusual request grew it large).
  func reuse(target: String, targetAddress: UInt, targetLength: Int) {
    self.target = target
    self.targetAddress = targetAddress
    self.targetLength = targetLength
    started = false
    counted = false
    method = ""
    body = []
    tooLarge = false
    discarded = 0
    // Emptied but kept when used: most requests on a connection carry the same framing.
    if !contentLengths.isEmpty { contentLengths.removeAll(keepingCapacity: true) }
    if !transferEncodings.isEmpty { transferEncodings.removeAll(keepingCapacity: true) }
    blockStart = 0
    mhdConnection = nil
    peerAddress = nil
    if fields.capacity > 64 { fields = [] } else { fields.removeAll(keepingCapacity: true) }
    nameLengths = 0
    hostCount = 0
    authorizationCount = 0
    host = HeaderBlockAudit.Span(offset: 0, length: 0)
  }
}

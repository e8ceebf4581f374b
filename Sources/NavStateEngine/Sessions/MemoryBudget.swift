import NavigationCore
import Synchronization

/// What the server holds, in bytes, against `--max-memory`: every session (its tree and its
/// event log) and every open event stream. Work that would grow it past the limit is refused
/// (503 `memory_exhausted`), so the process never grows until the system kills it.
///
/// Admission is by headroom: a request that can grow memory is let in only while the account
/// has room for the most one such request adds (`headroom`), then its actual growth is added.
/// Concurrent requests can overshoot the limit by at most one headroom each.
public final class MemoryBudget: Sendable {
  public let limit: Int
  /// The most one creation or mutation can add: a full event log and a little more.
  public let headroom: Int
  private let used = Atomic<Int>(0)

  public init(limit: Int, headroom: Int) {
    self.limit = limit
    self.headroom = headroom
  }

  public var usedBytes: Int { used.load(ordering: .relaxed) }

  /// Room for one more request that may grow memory by up to `bytes` (default: the headroom).
  package func hasRoom(for bytes: Int? = nil) -> Bool {
    usedBytes + (bytes ?? headroom) <= limit
  }

  package func add(_ delta: Int) {
    if delta != 0 { used.wrappingAdd(delta, ordering: .relaxed) }
  }
}

/// Estimates of what sessions and streams hold, calibrated against the process's RSS
/// (`MemoryAccountTests` checks the two stay close).
package enum MemoryFootprint {
  /// A session with no coordinators: its record (which holds its lock, id, token and times), its
  /// shard entry and its places in the deadline queues.
  package static let sessionBase = 400
  /// A coordinator in the tree (its 56-byte entry and the table's room, its params), without its
  /// params' strings: 10^6 idle sessions of three measured 1,005 bytes each in all, which this
  /// estimates as 1,016.
  package static let coordinator = 140
  /// A state cache beyond its encodings.
  package static let stateCache = 128
  /// A heap block's header and the allocator's rounding.
  package static let block = 48
  /// The most an event stream's buffer may hold before the stream is dropped as too slow.
  package static let streamBufferLimit = 256 * 1024
  /// An open event stream as it really is (its first message is counted on top): once its head
  /// is sent the stream leaves libmicrohttpd (see MicroHTTPServer's HTTPStream), so what stays is
  /// the stream, its subscription and its socket. Measured on an idle stream: 1.1 to 1.6 KiB of
  /// the process's RSS (`Benchmarks/tools/stream_rss.py BINARY 2000`; `Benchmarks/streams` at
  /// 15,000, which also counts what opening them at once leaves in the allocator), and 4.6 KiB of
  /// kernel memory outside RSS for the socket (slab growth per socket, 15,000 streams): 8 KiB
  /// covers both. (31.3 KiB while libmicrohttpd kept each stream's 32 KiB connection pool.)
  /// Counting the buffer's cap instead (288 KiB) let a few thousand abandoned streams exhaust the
  /// budget of a node that held a tenth of it.
  package static let stream = 8 * 1024

  package static func session(_ data: SessionRecord.Data) -> Int {
    let coordinators = data.navigation.coordinators
    return sessionBase + (data.log.footprint + MemoryFootprint.block)
      + (data.cache?.footprint ?? 0) + coordinators.count * Self.coordinator
      + coordinators.paramTextBytes + (data.idempotency?.footprint ?? 0)
      + data.navigation.guardingFootprint + data.history.footprint
  }
}

internal import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The event streams libmicrohttpd has handed over (see ``HTTPStream``), and the threads that
/// write them.
///
/// Why they leave libmicrohttpd: 0.9.75 keeps a connection's whole memory pool (32 KiB, of which
/// an idle stream had 5 to 8 pages touched) for as long as the connection lives, and a resumed
/// connection costs a walk of the daemon's whole list of suspended connections, an epoll_ctl to
/// put it back in its set and another to take it out again after one write. A handed-over
/// stream is a socket and the ``HTTPStream`` object: an event costs one `send`.
///
/// Each loop is a thread with an epoll set of its streams' sockets (watched for the client
/// closing its side, and for room to write while a send would block) and a queue of streams
/// with something to do. A stream is given a loop when it is handed over (in turn), and only
/// that loop's thread sends on its socket or closes it.
final class StreamSockets: Sendable {
  let loops: [StreamLoop]
  /// The unconnected socket that libmicrohttpd is left with in place of each socket taken
  /// over (see `cmhd_take_socket`); -1 if it could not be made (then streams stay in
  /// libmicrohttpd).
  let standIn: Int32
  private let next = Atomic<Int>(0)
  private let accepting = Atomic<Bool>(false)

  init(threads: Int) {
    standIn = cmhd_stand_in_socket()
    loops = standIn < 0 ? [] : (0..<max(1, threads)).compactMap { _ in StreamLoop() }
  }

  deinit {
    if standIn >= 0 { _ = close(standIn) }
  }

  func start() {
    let started = loops.allSatisfy { $0.start() }
    accepting.store(started && !loops.isEmpty, ordering: .releasing)
  }

  /// The loop a stream being handed over goes to, nil when streams cannot leave libmicrohttpd
  /// (no loop could be started, or the server is stopping).
  func loopForNewStream() -> StreamLoop? {
    guard accepting.load(ordering: .acquiring) else { return nil }
    return loops[next.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
  }

  /// Stops taking streams, ends those still open (their sockets are closed) and waits for the
  /// threads to exit. Called once libmicrohttpd has stopped.
  func stop() {
    accepting.store(false, ordering: .releasing)
    for loop in loops { loop.stop() }
  }
}

/// One stream-writing thread: its epoll set, its queue, its streams (see ``StreamSockets``).
final class StreamLoop: @unchecked Sendable {
  // Unchecked: `slots`, `freeSlots` and `releasedSlots` are touched by the loop's own thread
  // alone (register, watch and unregister are called from `HTTPStream.serve`, which only this
  // thread runs); everything else is immutable or behind `queue`'s lock.
  private let epoll: Int32
  private let wake: Int32
  private let queue = Locked(Queue())
  private let thread = JoinableThread()

  private struct Queue: Sendable {
    var streams: [HTTPStream] = []
    /// The wake-up descriptor has been written since the loop last found the queue empty.
    var signalled = false
    var stopping = false
  }

  /// The streams in the epoll set, by the token their socket is registered with.
  private var slots: [HTTPStream?] = []
  private var freeSlots: [Int32] = []
  /// Slots emptied in this round, reused from the next: an event for the old stream may still
  /// be in the batch being handled.
  private var releasedSlots: [Int32] = []
  private static let wakeToken = UInt64.max
  private static let batch = 256

  init?() {
    epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
    wake = cmhd_eventfd()
    guard epoll >= 0, wake >= 0,
      cmhd_epoll_control(epoll, cmhd_epoll_add(), wake, cmhd_epollin(), Self.wakeToken) == 0
    else {
      if epoll >= 0 { _ = close(epoll) }
      if wake >= 0 { _ = close(wake) }
      return nil
    }
  }

  deinit {
    _ = close(epoll)
    _ = close(wake)
  }

  func start() -> Bool {
    thread.start(named: "stream loop") { [self] in run() }
  }

  func stop() {
    thread.join {
      queue.withLock { $0.stopping = true }
      signal()
    }
  }

  /// Puts `stream` in the queue of streams to serve (called with the stream's lock held).
  func enqueue(_ stream: HTTPStream) {
    let mustWake = queue.withLock { queue in
      queue.streams.append(stream)
      guard !queue.signalled else { return false }
      queue.signalled = true
      return true
    }
    if mustWake { signal() }
  }

  private func signal() {
    var one: UInt64 = 1
    _ = write(wake, &one, MemoryLayout<UInt64>.size)
  }

  /// Adds a stream's socket to the epoll set, watched for the client leaving. Returns its slot,
  /// or -1 if epoll refused it.
  func register(_ stream: HTTPStream, socket: Int32) -> Int32 {
    let slot: Int32
    if let free = freeSlots.popLast() {
      slot = free
      slots[Int(slot)] = stream
    } else {
      slot = Int32(slots.count)
      slots.append(stream)
    }
    guard
      cmhd_epoll_control(epoll, cmhd_epoll_add(), socket, cmhd_epoll_peer_gone(), UInt64(slot))
        == 0
    else {
      slots[Int(slot)] = nil
      freeSlots.append(slot)
      return -1
    }
    return slot
  }

  /// Watches the socket for room to write too, or no longer.
  func watch(_ socket: Int32, slot: Int32, writable: Bool) {
    let events = cmhd_epoll_peer_gone() | (writable ? cmhd_epollout() : 0)
    _ = cmhd_epoll_control(epoll, cmhd_epoll_modify(), socket, events, UInt64(slot))
  }

  func unregister(_ socket: Int32, slot: Int32) {
    _ = cmhd_epoll_control(epoll, cmhd_epoll_delete(), socket, 0, 0)
    slots[Int(slot)] = nil
    releasedSlots.append(slot)
  }

  private func run() {
    var tokens = [UInt64](repeating: 0, count: Self.batch)
    var events = [UInt32](repeating: 0, count: Self.batch)
    let peerGone = cmhd_epoll_peer_gone()
    while true {
      let count = tokens.withUnsafeMutableBufferPointer { tokens in
        events.withUnsafeMutableBufferPointer { events in
          cmhd_epoll_wait(epoll, tokens.baseAddress, events.baseAddress, Int32(Self.batch), -1)
        }
      }
      for index in 0..<max(0, Int(count)) {
        let token = tokens[index]
        if token == Self.wakeToken {
          var value: UInt64 = 0
          _ = read(wake, &value, MemoryLayout<UInt64>.size)
          continue
        }
        guard token < UInt64(slots.count), let stream = slots[Int(token)] else { continue }
        serve(stream, peerGone: events[index] & peerGone != 0)
      }
      let stopping = drainQueue()
      freeSlots.append(contentsOf: releasedSlots)
      releasedSlots.removeAll(keepingCapacity: true)
      if stopping {
        endAll()
        return
      }
    }
  }

  /// Serves every queued stream, until the queue stays empty; returns whether the loop is to
  /// stop.
  private func drainQueue() -> Bool {
    while true {
      let (streams, stopping) = queue.withLock { queue -> ([HTTPStream], Bool) in
        guard !queue.streams.isEmpty else {
          queue.signalled = false
          return ([], queue.stopping)
        }
        defer { queue.streams = [] }
        return (queue.streams, queue.stopping)
      }
      if streams.isEmpty { return stopping }
      for stream in streams { serve(stream, peerGone: false) }
    }
  }

  private func serve(_ stream: HTTPStream, peerGone: Bool) {
    guard let ending = stream.serve(on: self, peerGone: peerGone) else { return }
    stream.ended(in: ending.server, releasing: ending.connection)
    if let socket = ending.giveBack { ending.server?.giveBack(socket) }
  }

  /// The server is stopping: every stream still here ends now.
  private func endAll() {
    for case let stream? in slots {
      stream.abort()
      serve(stream, peerGone: true)
    }
    _ = drainQueue()
  }
}

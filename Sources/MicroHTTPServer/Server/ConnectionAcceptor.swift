internal import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Accepts connections on the server's socket on a thread of its own and hands each to MHD
/// (MHD_add_connection), which gives it to the worker its descriptor number names (the number
/// modulo the pool's size): connections made together go to workers in turn.
///
/// Left to MHD, every worker polls the listening socket, and the first one awake accepts up to
/// ten connections in a row. 64 connections opened at once landed on as few as 7 of 32 workers;
/// with a store that confirms later, each worker waits for its change's commit, so the
/// connections sharing a worker take turns, and a load round's throughput fell by up to three
/// quarters, at random from one round to the next. MHD is given a listening socket of its own
/// that nobody connects to (`MHD_USE_NO_LISTEN_SOCKET` would also drop the worker pool).
final class ConnectionAcceptor: Sendable {
  private let listener: Int32
  private let daemon: UnsafeHandle
  /// Written to stop the thread.
  private let wake: Int32
  private let thread = JoinableThread()

  init?(listener: Int32, daemon: UnsafeHandle) {
    let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
    guard wake >= 0 else { return nil }
    self.listener = listener
    self.daemon = daemon
    self.wake = wake
  }

  deinit {
    _ = close(wake)
  }

  /// A listening socket for MHD's workers to poll: unnamed (an abstract Unix address the kernel
  /// picks), so no connection reaches it but by chance. -1 if it could not be made.
  static func idleListener() -> Int32 {
    let descriptor = socket(
      AF_UNIX,
      Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return -1 }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    // Only the family: the kernel binds an abstract name of its choosing.
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sa_family_t>.size))
      }
    }
    guard bound == 0, listen(descriptor, 1) == 0 else {
      _ = close(descriptor)
      return -1
    }
    return descriptor
  }

  func start() -> Bool {
    thread.start(named: "http accept") { [self] in run() }
  }

  /// Stops accepting; the listening socket is closed.
  func stop() {
    thread.join {
      var one: UInt64 = 1
      _ = write(wake, &one, MemoryLayout<UInt64>.size)
    }
    _ = close(listener)
  }

  private func run() {
    var polled = [
      pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
      pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
    ]
    while true {
      let ready = poll(&polled, nfds_t(polled.count), -1)
      if ready < 0 {
        if errno == EINTR { continue }
        return
      }
      if polled[1].revents != 0 { return }
      if polled[0].revents != 0 { acceptWaiting() }
    }
  }

  /// Accepts every connection waiting, handing each to MHD.
  private func acceptWaiting() {
    while true {
      var address = sockaddr_storage()
      var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
      let connection = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          accept(listener, $0, &length)
        }
      }
      guard connection >= 0 else {
        switch errno {
        case EINTR, ECONNABORTED: continue
        case EMFILE, ENFILE, ENOBUFS, ENOMEM:
          // Out of descriptors or memory: the connection waits in the backlog. Polling again at
          // once would find it still there, so wait a little for some to close.
          usleep(10_000)
          return
        default: return  // EAGAIN: none left
        }
      }
      // As MHD's own accept leaves them: non-blocking, not inherited by a child process.
      let flags = fcntl(connection, F_GETFL)
      if flags >= 0 { _ = fcntl(connection, F_SETFL, flags | O_NONBLOCK) }
      _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
      // MHD closes the socket itself if it refuses the connection (a limit, the accept policy).
      _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          MHD_add_connection(daemon.pointer, connection, $0, length)
        }
      }
    }
  }
}

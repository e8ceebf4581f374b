internal import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A thread of the server's own (a stream loop, the acceptor), started once and joined at stop.
final class JoinableThread: Sendable {
  private let thread = Mutex<pthread_t?>(nil)

  /// Runs `body` on a new thread named `name`; false if none could be made.
  func start(named name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
    let started = startThread(named: name, body)
    thread.withLock { $0 = started }
    return started != nil
  }

  /// If the thread runs: calls `stopping`, which must make its body return, and waits for it.
  func join(after stopping: () -> Void) {
    let running = thread.withLock { thread -> pthread_t? in
      defer { thread = nil }
      return thread
    }
    guard let running else { return }
    stopping()
    pthread_join(running, nil)
  }
}

/// Starts a thread running `body`; nil if it could not be made.
private func startThread(named name: String, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
  final class Work {
    let body: @Sendable () -> Void
    let name: String
    init(_ body: @escaping @Sendable () -> Void, _ name: String) {
      self.body = body
      self.name = name
    }
  }
  let work = Unmanaged.passRetained(Work(body, name)).toOpaque()
  var thread = pthread_t()
  let result = pthread_create(
    &thread, nil,
    { raw in
      guard let raw else { return nil }
      let work = Unmanaged<Work>.fromOpaque(raw).takeRetainedValue()
      cmhd_name_thread(work.name)
      work.body()
      return nil
    }, work)
  guard result == 0 else {
    Unmanaged<Work>.fromOpaque(work).release()
    return nil
  }
  return thread
}

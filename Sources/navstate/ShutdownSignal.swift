import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Blocks the main thread until SIGINT or SIGTERM arrives.
enum ShutdownSignal {
  static func wait() -> String {
    let received = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "navstate.signals")
    let name = SignalName()
    var sources: [any DispatchSourceSignal] = []
    for (number, label) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
      // Ignore the default action so that the dispatch source sees the signal instead.
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      source.setEventHandler {
        name.set(label)
        received.signal()
      }
      source.resume()
      sources.append(source)
    }
    received.wait()
    for source in sources { source.cancel() }
    return name.value
  }
}

/// The name of the signal that arrived, handed from the signal queue to the main thread.
private final class SignalName: Sendable {
  private let stored = Mutex("signal")

  func set(_ value: String) { stored.withLock { $0 = value } }

  var value: String { stored.withLock { $0 } }
}

import Dispatch

/// A value under a lock whose waiters sleep at once. `Mutex` first spins, about a thousand
/// pauses, which pays when the holder runs on another core; with dozens of threads on two cores
/// the holder is often preempted, and the spinning took a third of a node's time on the local
/// feed's numbering under `--fsync always`. For state every change updates in short turns.
package final class SleepingMutex<Value>: @unchecked Sendable {
  private let semaphore = DispatchSemaphore(value: 1)
  /// Guarded by `semaphore`.
  private var value: Value

  package init(_ value: Value) {
    self.value = value
  }

  package func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    semaphore.wait()
    defer { semaphore.signal() }
    return body(&value)
  }
}

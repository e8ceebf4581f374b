import Dispatch

/// Runs work on a timer of its own, off the request threads: session expiry, stream heartbeats.
public final class RepeatingTask {
  private let timer: any DispatchSourceTimer
  private let queue: DispatchQueue

  public init(label: String, interval: Double, _ work: @escaping @Sendable () -> Void) {
    queue = DispatchQueue(label: label)
    let timer = DispatchSource.makeTimerSource(queue: queue)
    // A timer of a few milliseconds (the feed's) may be late by a fifth of its period, others by
    // 20 ms.
    let leeway = DispatchTimeInterval.milliseconds(max(1, min(20, Int(interval * 200))))
    timer.schedule(deadline: .now() + interval, repeating: interval, leeway: leeway)
    timer.setEventHandler(handler: work)
    timer.resume()
    self.timer = timer
  }

  /// Stops the timer, and returns once a run under way is done: a periodic snapshot cannot then
  /// overlap the one a stop writes. Not to be called from the work itself.
  public func stop() {
    timer.cancel()
    queue.sync {}
  }
}

import Dispatch

/// Runs work on a timer of its own, off the request threads: session expiry, stream heartbeats.
public final class RepeatingTask {
  private let timer: any DispatchSourceTimer

  public init(label: String, interval: Double, _ work: @escaping @Sendable () -> Void) {
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: label))
    timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(20))
    timer.setEventHandler(handler: work)
    timer.resume()
    self.timer = timer
  }

  public func stop() {
    timer.cancel()
  }
}

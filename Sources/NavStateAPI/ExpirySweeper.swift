import Dispatch

/// Ends idle sessions on a timer of its own, off the request threads.
public final class ExpirySweeper {
  private let timer: any DispatchSourceTimer

  /// Checks `interval` seconds apart: often enough that a session outlives its TTL by at most
  /// that much.
  public init(store: SessionStore, interval: Double) {
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "navstate.expiry"))
    timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(20))
    timer.setEventHandler { store.expireIdle(now: .now()) }
    timer.resume()
    self.timer = timer
  }

  public func stop() {
    timer.cancel()
  }
}

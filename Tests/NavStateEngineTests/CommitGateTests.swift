import Dispatch
import Foundation
import Synchronization
import Testing

@testable import NavStateEngine

/// A session's commit gate: one holder at a time, parked changes handed it in the order they
/// came, and let go whatever the holder's body does.
@Suite struct CommitGateTests {
  private final class Box: @unchecked Sendable {
    var count = 0
  }

  /// Threads share the gate the way a session's changes share their record's.
  private final class Record: Sendable {
    let gate = CommitGate()
  }

  @Test func oneHolderAtATime() {
    let record = Record()
    let box = Box()  // guarded by the gate alone
    let inside = Atomic(0)
    let overlaps = Atomic(0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<2_000 {
        record.gate.withLock(of: record) {
          if inside.add(1, ordering: .relaxed).newValue != 1 {
            overlaps.add(1, ordering: .relaxed)
          }
          box.count += 1
          inside.subtract(1, ordering: .relaxed)
        }
      }
    }
    #expect(overlaps.load(ordering: .relaxed) == 0)
    #expect(box.count == 16_000)
  }

  @Test func parkedChangesAreHandedTheGateInTheOrderTheyCame() {
    let record = Record()
    let order = Mutex<[Int]>([])
    let release = DispatchSemaphore(value: 0)
    let held = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    done.enter()
    Thread {
      record.gate.withLock(of: record) {
        held.signal()
        release.wait()
      }
      done.leave()
    }.start()
    held.wait()
    for waiter in 1...5 {
      done.enter()
      Thread {
        record.gate.withLock(of: record) { order.withLock { $0.append(waiter) } }
        done.leave()
      }.start()
      // The next waiter starts only once this one waits for the gate.
      while record.gate.parkedCount(of: record) < waiter { usleep(100) }
    }
    release.signal()
    done.wait()
    #expect(order.withLock { $0 } == [1, 2, 3, 4, 5])
    #expect(record.gate.parkedCount(of: record) == 0)
  }

  private struct Refused: Error {}

  @Test func aBodyThatThrowsLetsTheGateGo() throws {
    let record = Record()
    var thrown = false
    do throws(Refused) {
      try record.gate.withLock(of: record) { () throws(Refused) -> Void in throw Refused() }
    } catch {
      thrown = true
    }
    #expect(thrown)
    let after = DispatchSemaphore(value: 0)
    Thread {
      record.gate.withLock(of: record) { _ = after.signal() }
    }.start()
    #expect(after.wait(timeout: .now() + 10) == .success)
  }
}

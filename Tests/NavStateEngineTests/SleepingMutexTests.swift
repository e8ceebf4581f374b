import Dispatch
import Synchronization
import Testing

@testable import NavStateEngine

/// The local feed's lock: one holder at a time, however many threads contend.
@Suite struct SleepingMutexTests {
  @Test func oneHolderAtATime() {
    let counted = SleepingMutex(0)
    let inside = Atomic(0)
    let overlaps = Atomic(0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<2_000 {
        counted.withLock { count in
          if inside.add(1, ordering: .relaxed).newValue != 1 {
            overlaps.add(1, ordering: .relaxed)
          }
          count += 1
          inside.subtract(1, ordering: .relaxed)
        }
      }
    }
    #expect(overlaps.load(ordering: .relaxed) == 0)
    #expect(counted.withLock { $0 } == 16_000)
  }
}

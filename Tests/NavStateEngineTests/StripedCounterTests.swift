import Dispatch
import Testing

@testable import NavStateEngine

/// Counters kept in stripes: concurrent updates all land, and a read adds every stripe up.
@Suite struct StripedCounterTests {
  @Test func concurrentUpdatesAreAllKept() {
    let counter = StripedCounter([0, 0], stripes: 4)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for _ in 0..<5_000 {
        counter.update { $0[thread % 2] += 1 }
      }
    }
    let total = counter.merged { total, stripe in
      for index in total.indices { total[index] += stripe[index] }
    }
    #expect(total == [20_000, 20_000])
  }

  @Test func successiveUpdatesSpreadOverTheStripesAndAReadMergesThemAll() {
    let counter = StripedCounter(0, stripes: 3)
    for _ in 0..<7 { counter.update { $0 += 1 } }
    var parts: [Int] = []
    let total = counter.merged { total, stripe in
      parts.append(stripe)
      total += stripe
    }
    #expect(total == 7)
    #expect(parts.count == 2, "the first stripe is the start, the two others merged into it")
    #expect(parts.allSatisfy { $0 > 0 }, "uncontended updates take the stripes in turn")
  }
}

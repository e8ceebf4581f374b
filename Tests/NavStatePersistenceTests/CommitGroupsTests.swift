import Foundation
import Synchronization
import Testing

@testable import NavStatePersistence

/// Group commit: every record is written once, in one of as few writes as the callers' overlap
/// allows, and each caller hears how its own group went.
@Suite struct CommitGroupsTests {
  /// Runs `body(thread, index)` on `threads` threads, `count` times each, and waits for all.
  private func concurrently(
    threads: Int, count: Int, _ body: @escaping @Sendable (Int, Int) -> Void
  ) {
    let group = DispatchGroup()
    for thread in 0..<threads {
      group.enter()
      Thread.detachNewThread {
        defer { group.leave() }
        for index in 0..<count { body(thread, index) }
      }
    }
    group.wait()
  }

  @Test("concurrent commits are each written once, sharing writes while one is under way")
  func everyRecordOnceInFewerWrites() {
    let groups = CommitGroups<[UInt8]>()
    let written = Mutex<[[UInt8]]>([])
    let answers = Atomic<Int>(0)
    let (threads, count) = (16, 25)
    concurrently(threads: threads, count: count) { thread, index in
      let ok = groups.commit([UInt8(thread), UInt8(index)]) { bytes in
        // A flush takes a while: the callers that arrive meanwhile wait together.
        Thread.sleep(forTimeInterval: 0.001)
        written.withLock { $0.append(bytes) }
        return true
      }
      if ok { answers.add(1, ordering: .relaxed) }
    }
    let writes = written.withLock { $0 }
    #expect(answers.load(ordering: .relaxed) == threads * count)
    var records: [[UInt8]] = []
    for bytes in writes {
      for start in stride(from: 0, to: bytes.count, by: 2) {
        records.append([bytes[start], bytes[start + 1]])
      }
    }
    #expect(records.count == threads * count)
    #expect(Set(records).count == threads * count, "no record written twice")
    #expect(writes.count < threads * count, "\(writes.count) writes for \(threads * count) records")
    // Each thread's records keep their order.
    for thread in 0..<threads {
      let mine: [Int] = records.filter { $0[0] == UInt8(thread) }.map { Int($0[1]) }
      #expect(mine == Array(0..<count))
    }
  }

  @Test("a group whose write fails is refused, every caller in it; the next group may succeed")
  func failedGroupIsRefused() {
    let groups = CommitGroups<[UInt8]>()
    let failNext = Atomic<Bool>(true)
    let outcomes = Mutex<[(record: UInt8, ok: Bool)]>([])
    let refusedBytes = Mutex<[UInt8]>([])
    concurrently(threads: 8, count: 10) { thread, index in
      let record = UInt8(thread * 10 + index)
      let ok = groups.commit([record]) { bytes in
        Thread.sleep(forTimeInterval: 0.001)
        // Every other write fails, as on a disk that is full now and then.
        let fails = failNext.load(ordering: .relaxed)
        failNext.store(!fails, ordering: .relaxed)
        if fails { refusedBytes.withLock { $0 += bytes } }
        return !fails
      }
      outcomes.withLock { $0.append((record, ok)) }
    }
    let refused = Set(refusedBytes.withLock { $0 })
    let results = outcomes.withLock { $0 }
    #expect(results.count == 80)
    #expect(results.contains { $0.ok } && results.contains { !$0.ok })
    for (record, ok) in results { #expect(ok == !refused.contains(record), "record \(record)") }
  }
}

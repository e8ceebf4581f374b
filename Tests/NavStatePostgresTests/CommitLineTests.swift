import Dispatch
import Foundation
import Synchronization
import Testing

@testable import NavStatePostgres

/// The committer of `--postgres`: every record is written once, in the order it was enqueued,
/// in groups; every caller learns its own group's outcome.
@Suite struct CommitLineTests {
  @Test func everyRecordIsWrittenOnceInOrderAndItsCallerWoken() {
    let written = Mutex<[[Int]]>([])
    let line = CommitLine<Int> { records, sent in
      sent()
      written.withLock { $0.append(records) }
      usleep(200)  // a commit takes a while: the others gather meanwhile
      return true
    }
    defer { line.stop() }
    let threads = 16
    let perThread = 100
    let finished = DispatchGroup()
    for thread in 0..<threads {
      finished.enter()
      Thread {
        for index in 0..<perThread {
          let group = line.enqueue(thread * perThread + index)
          #expect(line.wait(for: group))
        }
        finished.leave()
      }.start()
    }
    finished.wait()
    let groups = written.withLock { $0 }
    let all = groups.flatMap { $0 }
    #expect(all.count == threads * perThread)
    #expect(Set(all).count == all.count, "each once")
    for thread in 0..<threads {
      let own = all.filter { $0 / perThread == thread }
      #expect(own == own.sorted(), "thread \(thread)'s records in the order it made them")
    }
    #expect(groups.count < all.count, "some records shared a commit")
  }

  @Test func aRefusedGroupRefusesEachOfItsCallers() {
    let line = CommitLine<Int> { records, _ in !records.contains(13) }
    defer { line.stop() }
    #expect(line.wait(for: line.enqueue(1)))
    #expect(!line.wait(for: line.enqueue(13)))
    #expect(line.wait(for: line.enqueue(2)), "the next group commits again")
  }

  @Test func aGroupWhoseStatementNeverLeftStillWakesTheGroupBefore() {
    // The second write fails before sending (`sent` never called): the first group's callers
    // must be woken anyway.
    let calls = Atomic(0)
    let release = DispatchSemaphore(value: 0)
    let line = CommitLine<Int> { _, sent in
      if calls.add(1, ordering: .relaxed).newValue == 1 {
        sent()
        release.wait()
        return true
      }
      return false
    }
    defer { line.stop() }
    let first = line.enqueue(1)
    usleep(10_000)
    let second = line.enqueue(2)
    release.signal()
    #expect(line.wait(for: first))
    #expect(!line.wait(for: second))
  }

  @Test func whatIsEnqueuedBeforeAStopIsWrittenAndNothingAfter() {
    let written = Mutex<[Int]>([])
    let line = CommitLine<Int> { records, _ in
      written.withLock { $0 += records }
      return true
    }
    let groups = (0..<5).map { line.enqueue($0) }
    line.stop()
    for group in groups { #expect(line.wait(for: group)) }
    #expect(!line.wait(for: line.enqueue(99)), "refused at once, not left waiting")
    #expect(written.withLock { $0 } == [0, 1, 2, 3, 4])
  }
}

import Testing

@testable import NavStateEngine

@Suite struct DeadlineQueueTests {
  @Test func popsWhatIsDueEarliestFirstAndKeepsTheRest() {
    var queue = DeadlineQueue<String>()
    queue.push("c", at: 30)
    queue.push("a", at: 10)
    queue.push("d", at: 40)
    queue.push("b", at: 20)
    #expect(queue.nextDeadline == 10)
    #expect(queue.popDue(now: 5) == [])
    #expect(queue.popDue(now: 20) == ["a", "b"])
    #expect(queue.count == 2)
    #expect(queue.popDue(now: 100) == ["c", "d"])
    #expect(queue.isEmpty)
  }

  @Test func agreesWithSortingOverRandomDeadlines() {
    var generator = SystemRandomNumberGenerator()
    var queue = DeadlineQueue<Int>()
    var expected: [(Int64, Int)] = []
    for element in 0..<5_000 {
      let deadline = Int64.random(in: 0..<1_000, using: &generator)
      queue.push(element, at: deadline)
      expected.append((deadline, element))
    }
    func deadline(of element: Int) -> Int64 { expected[element].0 }
    var popped: [Int] = []
    for now in stride(from: Int64(0), through: 1_000, by: 37) {
      let due = queue.popDue(now: now)
      // Everything popped at `now` was due, and nothing due is left behind.
      #expect(due.allSatisfy { deadline(of: $0) <= now })
      #expect((queue.nextDeadline ?? .max) > now)
      popped += due
    }
    #expect(popped.count == 5_000)
    #expect(popped.map(deadline(of:)) == popped.map(deadline(of:)).sorted())
  }
}

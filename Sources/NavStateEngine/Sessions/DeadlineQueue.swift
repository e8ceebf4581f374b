/// Things due at a time, earliest first: a binary min-heap.
///
/// Session expiry and stream heartbeats use it so that a tick costs what falls due, not a walk
/// over every session. Deadlines are not updated in place: a session touched since it was queued
/// is simply queued again, at its new time, when its old entry comes out (so each session has one
/// entry, and a request costs the queue nothing).
package struct DeadlineQueue<Element> {
  private var heap: [(deadline: Int64, element: Element)] = []

  package var count: Int { heap.count }
  package var isEmpty: Bool { heap.isEmpty }
  /// The earliest deadline, if any.
  package var nextDeadline: Int64? { heap.first?.deadline }

  package mutating func push(_ element: Element, at deadline: Int64) {
    heap.append((deadline, element))
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].deadline < heap[parent].deadline else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes and returns every element due at `now` or before, earliest first.
  package mutating func popDue(now: Int64) -> [Element] {
    var due: [Element] = []
    while let first = heap.first, first.deadline <= now {
      due.append(first.element)
      removeFirst()
    }
    return due
  }

  /// Removes and returns the earliest element, due or not.
  package mutating func popFirst() -> Element? {
    guard let first = heap.first else { return nil }
    removeFirst()
    return first.element
  }

  private mutating func removeFirst() {
    let last = heap.removeLast()
    guard !heap.isEmpty else { return }
    heap[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
      if right < heap.count && heap[right].deadline < heap[smallest].deadline { smallest = right }
      guard smallest != parent else { return }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
  }
}

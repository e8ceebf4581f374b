import Dispatch
import Synchronization

/// A session's commit gate (``SessionRecord/commitGate``): held by a change from before its
/// record is handed to a store that confirms later until the change is sent to streams, so for
/// the length of a commit. A change that finds it held parks at once and is handed the gate in
/// turn, where `Mutex` would first spin (about a thousand pauses) for a holder that waits on
/// PostgreSQL or a disk: under a write load that spinning took a tenth of a node's time.
///
/// Four bytes in the record, as the `Mutex` it replaced (a million idle sessions keep their
/// size): the changes parked for a gate wait in a table shared by all gates, found by the
/// record that holds the gate.
package struct CommitGate: ~Copyable, Sendable {
  private static let free: UInt32 = 0
  private static let held: UInt32 = 1
  /// Held, with changes parked for it: whoever lets it go hands it to the oldest.
  private static let heldWithParked: UInt32 = 2

  private let state = Atomic<UInt32>(0)

  package init() {}

  /// Runs `body` holding the gate; `owner` is the record the gate is in.
  package func withLock<Result: ~Copyable, Failure: Error>(
    of owner: AnyObject, _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let key = ObjectIdentifier(owner)
    acquire(key)
    defer { release(key) }
    return try body()
  }

  /// How many changes are parked for the gate now.
  func parkedCount(of owner: AnyObject) -> Int {
    let key = ObjectIdentifier(owner)
    return ParkedChanges.room(of: key).parked.withLock { $0[key]?.count ?? 0 }
  }

  private func acquire(_ key: ObjectIdentifier) {
    if take() { return }
    let turn = ParkedChanges.room(of: key).parked.withLock { parked -> DispatchSemaphore? in
      // Under the room's lock nobody else parks for this gate, or hands it over.
      while true {
        if take() { return nil }
        let current = state.load(ordering: .acquiring)
        if current == Self.held {
          let marked = state.compareExchange(
            expected: Self.held, desired: Self.heldWithParked, ordering: .acquiringAndReleasing
          ).exchanged
          guard marked else { continue }  // let go meanwhile: try again
        } else if current == Self.free {
          continue
        }
        let turn = DispatchSemaphore(value: 0)
        parked[key, default: []].append(turn)
        return turn
      }
    }
    // Handed over by the holder: the gate stays held in between.
    turn?.wait()
  }

  private func take() -> Bool {
    state.compareExchange(expected: Self.free, desired: Self.held, ordering: .acquiring).exchanged
  }

  private func release(_ key: ObjectIdentifier) {
    let unparked = state.compareExchange(
      expected: Self.held, desired: Self.free, ordering: .releasing
    ).exchanged
    if unparked { return }
    // Parked changes: only this holder moves the gate out of `heldWithParked`.
    let next = ParkedChanges.room(of: key).parked.withLock { parked -> DispatchSemaphore? in
      guard var waiting = parked.removeValue(forKey: key), !waiting.isEmpty else {
        state.store(Self.free, ordering: .releasing)
        return nil
      }
      let next = waiting.removeFirst()
      if waiting.isEmpty {
        state.store(Self.held, ordering: .releasing)
      } else {
        parked[key] = waiting
      }
      return next
    }
    next?.signal()
  }
}

/// The changes parked for commit gates, by the record that holds the gate, in rooms of their
/// own so that sessions seldom share a lock.
private enum ParkedChanges {
  final class Room: Sendable {
    let parked = Mutex<[ObjectIdentifier: [DispatchSemaphore]]>([:])
  }

  static let rooms = (0..<16).map { _ in Room() }

  static func room(of key: ObjectIdentifier) -> Room {
    rooms[Int(UInt(bitPattern: key.hashValue) % UInt(rooms.count))]
  }
}

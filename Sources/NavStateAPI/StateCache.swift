import NavJSON
import NavigationCore

/// A session's state encoded for one version, kept while the session is in use: the members
/// before `expiresAt` (the head) and those after it (the tail), so that a read writes only
/// `expiresAt` between them.
///
/// A class so that a session not in use pays one reference for it. Not shared: it is created,
/// read and changed only under its session's lock.
final class StateCache: @unchecked Sendable {
  /// The head's members that never change (the session's id, graph and creation time).
  let fixedHead: StateJSON.FixedHead
  private(set) var version = -1
  private(set) var head: [UInt8] = []
  private(set) var tail = EncodedTail(bytes: [], identities: [])
  /// The tree `tail` was encoded from. The tail depends on the tree alone, so a version that
  /// leaves an equal tree (a push and its pop in one batch) keeps it. This shares its storage
  /// with the session's live table, so it costs no memory of its own until the tree changes.
  private(set) var tree: (root: CoordinatorID?, coordinators: CoordinatorTable)?
  /// The tree and tail encoded before those: a push and then its pop (two calls, two versions)
  /// comes back to it, and the pop then encodes nothing.
  private(set) var previous:
    (root: CoordinatorID?, coordinators: CoordinatorTable, tail: EncodedTail)?

  /// What it holds beyond the session itself.
  var footprint: Int {
    var bytes =
      MemoryFootprint.stateCache + fixedHead.footprint + head.capacity + tail.footprint
    if let previous {
      // Its tail, and its table's entries (the coordinators' own storage is shared).
      bytes +=
        previous.tail.footprint + previous.coordinators.count * MemoryFootprint.coordinatorEntry
    }
    return bytes
  }

  init(fixedHead: StateJSON.FixedHead) {
    self.fixedHead = fixedHead
  }

  func update(to state: NavigationState, head: [UInt8]) {
    self.head = head
    let current = (root: state.rootID, coordinators: state.coordinators)
    if let tree, tree.root == current.root, tree.coordinators.hasSameTree(as: current.coordinators)
    {
      // Equal trees, equal tails; keep the current storage only, so the old one is freed.
    } else if let previous, previous.root == current.root,
      previous.coordinators.hasSameTree(as: current.coordinators)
    {
      // Back to the tree before: its tail becomes current, and the current one previous.
      self.previous = tree.map { ($0.root, $0.coordinators, tail) }
      tail = previous.tail
    } else {
      previous = tree.map { ($0.root, $0.coordinators, tail) }
      // Copying the identities of the coordinators the tree keeps from the tail before.
      tail = StateJSON.encodeTail(of: state, reusing: tail)
    }
    tree = current
    version = state.version
  }
}

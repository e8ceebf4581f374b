import NavJSON
package import NavStateWire
package import NavigationCore

/// A session's state encoded for one version, kept while the session is in use: the members
/// before `expiresAt` (the head) and those after it (the tail), so that a read writes only
/// `expiresAt` between them.
///
/// A class so that a session not in use pays one reference for it. Not shared: it is created,
/// read and changed only under its session's lock.
package final class StateCache: @unchecked Sendable {
  /// The head's members that never change (the session's id, graph and creation time).
  package let fixedHead: StateJSON.FixedHead
  private(set) var version = -1
  private(set) var head: [UInt8] = []
  private(set) var tail = EncodedTail(bytes: [], identities: [])
  /// The shape of the tree `tail` was encoded from. The tail depends on the tree alone, so a
  /// version that leaves an equal tree (a push and its pop in one batch) keeps it. A shape, not
  /// the table itself: a table kept here would share its storage with the session's live one,
  /// and the next operation would then copy every coordinator before changing it.
  /// With the shape, the context, pending request and leave guards the tail shows (see
  /// `NavigationState.guardingIdentity`): kept, so that it cannot be freed and another take its
  /// place.
  private(set) var tree: (root: CoordinatorID?, shape: TreeShape, guarding: AnyObject?)?
  /// The tree and tail encoded before those: a push and then its pop (two calls, two versions)
  /// comes back to it, and the pop then encodes nothing.
  private(set) var previous:
    (root: CoordinatorID?, shape: TreeShape, guarding: AnyObject?, tail: EncodedTail)?

  /// What it holds beyond the session itself.
  package var footprint: Int {
    var bytes =
      MemoryFootprint.stateCache + fixedHead.footprint + head.capacity + tail.footprint
      + (tree?.shape.footprint ?? 0)
    if let previous { bytes += previous.tail.footprint + previous.shape.footprint }
    return bytes
  }

  package init(fixedHead: StateJSON.FixedHead) {
    self.fixedHead = fixedHead
  }

  package func update(to state: NavigationState, head: [UInt8]) {
    self.head = head
    let current = (
      root: state.rootID, shape: state.coordinators.shape, guarding: state.guardingIdentity
    )
    if let tree, tree.root == current.root, tree.shape == current.shape,
      tree.guarding === current.guarding
    {
      // Equal trees, equal tails.
    } else if let previous, previous.root == current.root, previous.shape == current.shape,
      previous.guarding === current.guarding
    {
      // Back to the tree before: its tail becomes current, and the current one previous.
      self.previous = tree.map { ($0.root, $0.shape, $0.guarding, tail) }
      tail = previous.tail
    } else {
      previous = tree.map { ($0.root, $0.shape, $0.guarding, tail) }
      // Copying the identities of the coordinators the tree keeps from the tail before.
      tail = StateJSON.encodeTail(of: state, reusing: tail)
    }
    tree = current
    version = state.version
  }
}

import NavJSON
package import NavigationCore

/// A state's tail (see ``StateJSON/encodeTail(of:reusing:)``) and where each coordinator's
/// identity (`"id":…,"route":…,"params":…,"presentation":…`) lies in it.
///
/// A coordinator's identity never changes: its route, params and presentation are fixed when it
/// starts, and ids are never reused within a session. So the next version's tail copies the
/// identities of the coordinators it keeps from this one instead of encoding them again; a push
/// encodes only the new coordinator's.
package struct EncodedTail {
  /// Where one identity lies in `bytes`.
  package struct Span {
    package var id: Int
    package var start: Int
    package var count: Int

    package init(id: Int, start: Int, count: Int) {
      self.id = id
      self.start = start
      self.count = count
    }
  }

  package var bytes: [UInt8]
  /// By increasing id: one for each coordinator of the tree.
  package var identities: [Span]

  package init(bytes: [UInt8], identities: [Span]) {
    self.bytes = bytes
    self.identities = identities
  }

  /// What it holds beyond its owner.
  package var footprint: Int {
    bytes.capacity + identities.capacity * MemoryLayout<Span>.stride
  }

  package static func span(of id: CoordinatorID, in identities: UnsafeBufferPointer<Span>) -> Span?
  {
    var low = 0
    var high = identities.count
    while low < high {
      let middle = (low + high) / 2
      if identities[middle].id < id.number { low = middle + 1 } else { high = middle }
    }
    return low < identities.count && identities[low].id == id.number ? identities[low] : nil
  }
}

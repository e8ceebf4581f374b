/// A session's live coordinators by id, kept in an array sorted by id.
///
/// Ids are handed out in increasing order, so a new coordinator always goes at the end, and a
/// lookup is a binary search over a few dozen entries at most: cheaper than hashing, and the
/// ids come out in order with no sort.
public struct CoordinatorTable: Sendable, Equatable, ExpressibleByDictionaryLiteral {
  private var entries: [Coordinator] = []

  public init(dictionaryLiteral elements: (CoordinatorID, Coordinator)...) {
    for (id, coordinator) in elements.sorted(by: { $0.0 < $1.0 }) {
      precondition(coordinator.id == id, "a coordinator is filed under its own id")
      entries.append(coordinator)
    }
  }

  public var count: Int { entries.count }
  public var isEmpty: Bool { entries.isEmpty }
  /// The live coordinators, by increasing id.
  public var values: [Coordinator] { entries }
  /// The live ids, increasing.
  public var keys: [CoordinatorID] { entries.map(\.id) }

  public subscript(id: CoordinatorID) -> Coordinator? {
    get {
      guard let position = position(of: id) else { return nil }
      return entries[position]
    }
    set {
      let found = position(of: id)
      switch (found, newValue) {
      case (let position?, let coordinator?):
        precondition(coordinator.id == id, "a coordinator is filed under its own id")
        entries[position] = coordinator
      case (let position?, nil):
        entries.remove(at: position)
      case (nil, let coordinator?):
        precondition(coordinator.id == id, "a coordinator is filed under its own id")
        if let last = entries.last, last.id > id {
          entries.insert(coordinator, at: insertionPoint(of: id))
        } else {
          if entries.count == entries.capacity {
            // Grown by half rather than doubled: every session holds a table, most of a few
            // coordinators, and an idle session keeps whatever room its table has.
            entries.reserveCapacity(entries.count + max(1, entries.count / 2))
          }
          entries.append(coordinator)
        }
      case (nil, nil):
        break
      }
    }
  }

  /// What decides whether two tables of one session hold the same tree: the ids, each with its
  /// children in order and its selected tab. Within a session an id is never reused and a
  /// coordinator's route, params and presentation never change, so equal shapes are equal
  /// trees. Kept in place of a table to compare with later, it shares nothing with the table,
  /// which then stays uniquely held and changes in place.
  public var shape: TreeShape {
    var words: [Int] = []
    words.reserveCapacity(entries.count * 4)
    for index in entries.indices {
      words.append(entries[index].id.number)
      words.append(entries[index].selectedTab ?? -1)
      words.append(entries[index].children.count)
      for child in entries[index].children { words.append(child.number) }
    }
    return TreeShape(words: words)
  }

  // Single fields, read in place: the tree walks that run on every state read need one field
  // of many coordinators, and copying a whole coordinator costs a retain per member.

  public func route(of id: CoordinatorID) -> String? {
    position(of: id).map { entries[$0].route }
  }

  public func presentation(of id: CoordinatorID) -> Presentation? {
    position(of: id).map { entries[$0].presentation }
  }

  /// The parent of `id`; nil for the root and for an id that is not live.
  public func parent(of id: CoordinatorID) -> CoordinatorID? {
    position(of: id).flatMap { entries[$0].parent }
  }

  /// The children of `id`, in order; empty for an id that is not live.
  public func children(of id: CoordinatorID) -> CoordinatorChildren {
    position(of: id).map { entries[$0].children } ?? []
  }

  public func selectedTab(of id: CoordinatorID) -> Int? {
    position(of: id).flatMap { entries[$0].selectedTab }
  }

  /// The text the coordinators' params hold (see ``Params/textBytes``), summed in place.
  public var paramTextBytes: Int {
    var bytes = 0
    for index in entries.indices where !entries[index].params.isEmpty {
      bytes += entries[index].params.textBytes
    }
    return bytes
  }

  /// The ids of the live coordinators that have a parent and are not shown as `excluded`,
  /// increasing: two fields of each read in place (a coordinator handed to a predicate would be
  /// copied out, a retain and a release of each of its members).
  public func childIDs(notShownAs excluded: Presentation) -> [CoordinatorID] {
    var ids: [CoordinatorID] = []
    ids.reserveCapacity(entries.count)
    for index in entries.indices
    where entries[index].parent != nil && entries[index].presentation != excluded {
      ids.append(entries[index].id)
    }
    return ids
  }

  /// Changes the live coordinator `id` where it lies (the subscript's setter would copy it out
  /// and back); nothing when `id` is not live.
  mutating func modify(_ id: CoordinatorID, _ change: (inout Coordinator) -> Void) {
    guard let position = position(of: id) else { return }
    change(&entries[position])
  }

  /// The first modal child of `id`, else its first pushed child, else its selected tab: the next
  /// step of the visible path, found in one pass over the entries in place.
  public func visibleChild(of id: CoordinatorID) -> CoordinatorID? {
    guard let parentPosition = position(of: id) else { return nil }
    return entries.withUnsafeBufferPointer { entries in
      let selected = entries[parentPosition].selectedTab
      var pushed: CoordinatorID?
      var selectedTab: CoordinatorID?
      var tabIndex = 0
      for child in entries[parentPosition].children {
        guard let position = Self.position(of: child, in: entries) else { continue }
        switch entries[position].presentation {
        case .sheet, .fullScreenCover:
          return child
        case .push:
          if pushed == nil { pushed = child }
        case .tab:
          if tabIndex == selected { selectedTab = child }
          tabIndex += 1
        case .root:
          break
        }
      }
      return pushed ?? selectedTab
    }
  }

  private static func position(of id: CoordinatorID, in entries: UnsafeBufferPointer<Coordinator>)
    -> Int?
  {
    var low = 0
    var high = entries.count
    while low < high {
      let middle = (low + high) / 2
      if entries[middle].id.number < id.number { low = middle + 1 } else { high = middle }
    }
    return low < entries.count && entries[low].id == id ? low : nil
  }

  private func position(of id: CoordinatorID) -> Int? {
    let point = insertionPoint(of: id)
    return point < entries.count && entries[point].id == id ? point : nil
  }

  /// The first position whose id is not below `id`.
  private func insertionPoint(of id: CoordinatorID) -> Int {
    var low = 0
    var high = entries.count
    while low < high {
      let middle = (low + high) / 2
      if entries[middle].id.number < id.number {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }
}

/// A tree's shape (see ``CoordinatorTable/shape``), flat: for each coordinator by id, its id,
/// its selected tab (-1 for none), its number of children and their ids.
public struct TreeShape: Sendable, Equatable {
  fileprivate var words: [Int]

  /// The memory it holds.
  public var footprint: Int { words.capacity * MemoryLayout<Int>.stride }
}

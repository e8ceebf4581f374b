import Testing

@testable import NavigationCore

/// A coordinator's children: up to one inline, more in an array, always in order.
@Suite("coordinator children")
struct CoordinatorChildrenTests {
  private func ids(_ numbers: Int...) -> [CoordinatorID] { numbers.map(CoordinatorID.init) }

  @Test("appends keep the order through none, one and many")
  func appendsKeepOrder() {
    var children: CoordinatorChildren = []
    #expect(children.isEmpty)
    for number in 1...4 {
      children.append(CoordinatorID(number))
      #expect(children.map(\.number) == Array(1...number))
    }
    #expect(children[3] == CoordinatorID(4))
  }

  @Test("removal and insertion land where asked, and equal lists compare equal however held")
  func removeAndInsert() {
    var children = CoordinatorChildren(ids(1, 2, 3))
    children.removeAll { $0.number == 2 }
    #expect(Array(children) == ids(1, 3))
    children.insert(CoordinatorID(9), at: 1)
    #expect(Array(children) == ids(1, 9, 3))
    children.removeAll { $0.number != 9 }
    #expect(children == [CoordinatorID(9)])
    children.removeAll { _ in true }
    #expect(children == [])
    #expect(CoordinatorChildren(ids(5, 6)) != CoordinatorChildren(ids(6, 5)))
  }

  @Test("a coordinator takes 56 bytes, and its parent and selected tab read back as set")
  func compactCoordinator() {
    // Every live coordinator of every session is one of these: the idle-session memory figure
    // depends on this size (docs/performance.md).
    #expect(MemoryLayout<Coordinator>.stride == 56)
    var node = Coordinator(
      id: CoordinatorID(2), route: "tabs", params: [:], presentation: .push,
      parent: CoordinatorID(1), children: [], selectedTab: 3)
    #expect(node.parent == CoordinatorID(1))
    #expect(node.selectedTab == 3)
    node.selectedTab = nil
    #expect(node.selectedTab == nil)
    // A tab index past 32 bits (a damaged archive) is kept out of range rather than trapping.
    node.selectedTab = Int.max
    #expect(node.selectedTab == Int(Int32.max))
    let root = Coordinator(
      id: CoordinatorID(1), route: "root", params: [:], presentation: .push, parent: nil,
      children: [CoordinatorID(2)], selectedTab: nil)
    #expect(root.parent == nil)
    #expect(root.children == [CoordinatorID(2)])
  }
}

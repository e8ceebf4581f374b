/// One screen and its presenter: a node of a session's tree.
public struct Coordinator: Sendable, Equatable {
  // Every live coordinator of every session is one of these: stored in 56 bytes rather than 72,
  // the one-byte fields after the children's tag, and the optionals as sentinels (an optional
  // Int takes 9 bytes and the padding after it).
  public let id: CoordinatorID
  public let route: String
  public let params: Params
  /// Tab children first (in tab order), then push and modal children in the order they came.
  public internal(set) var children: CoordinatorChildren
  public let presentation: Presentation
  /// The selected tab's index, or -1.
  private var selectedTabIndex: Int32
  /// The parent's number, or `Int.min` for the root.
  private let parentNumber: Int

  public var parent: CoordinatorID? {
    parentNumber == Int.min ? nil : CoordinatorID(parentNumber)
  }

  /// For a tab container: the index of the selected tab.
  public internal(set) var selectedTab: Int? {
    get { selectedTabIndex < 0 ? nil : Int(selectedTabIndex) }
    set { selectedTabIndex = Self.storedTab(newValue) }
  }

  /// Clamped, never trapping: an index past 32 bits (only a damaged archive holds one) reads back
  /// as another that is just as far out of range, which the shape rules then refuse.
  private static func storedTab(_ index: Int?) -> Int32 {
    index.map { Int32(clamping: max(0, $0)) } ?? -1
  }

  public init(
    id: CoordinatorID, route: String, params: Params, presentation: Presentation,
    parent: CoordinatorID?, children: CoordinatorChildren, selectedTab: Int?
  ) {
    precondition(parent?.number != Int.min, "a coordinator number is never Int.min")
    self.id = id
    self.route = route
    self.params = params
    self.presentation = presentation
    self.parentNumber = parent?.number ?? Int.min
    self.children = children
    self.selectedTabIndex = Self.storedTab(selectedTab)
  }
}

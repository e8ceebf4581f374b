/// One screen and its presenter: a node of a session's tree.
public struct Coordinator: Sendable, Equatable {
  // Stored so that the one-byte and optional fields share the end: every live coordinator of
  // every session is one of these, and the order saves 8 bytes of padding on each.
  public let id: CoordinatorID
  public let route: String
  public let params: Params
  /// Tab children first (in tab order), then push and modal children in the order they came.
  public internal(set) var children: [CoordinatorID]
  public let parent: CoordinatorID?
  /// For a tab container: the index of the selected tab.
  public internal(set) var selectedTab: Int?
  public let presentation: Presentation

  public init(
    id: CoordinatorID, route: String, params: Params, presentation: Presentation,
    parent: CoordinatorID?, children: [CoordinatorID], selectedTab: Int?
  ) {
    self.id = id
    self.route = route
    self.params = params
    self.presentation = presentation
    self.parent = parent
    self.children = children
    self.selectedTab = selectedTab
  }
}

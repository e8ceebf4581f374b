/// One screen and its presenter: a node of a session's tree.
public struct Coordinator: Sendable, Equatable {
  public let id: CoordinatorID
  public let route: String
  public let params: Params
  public let presentation: Presentation
  public let parent: CoordinatorID?
  /// Tab children first (in tab order), then push and modal children in the order they came.
  public internal(set) var children: [CoordinatorID]
  /// For a tab container: the index of the selected tab.
  public internal(set) var selectedTab: Int?
}

/// Every operation a request body can ask for, by the name clients use: in the path of
/// `POST /v1/sessions/{sid}/{operation}` and as a batch element's `op`. Decoders switch over it
/// exhaustively, so an operation added here is an error in each place that must handle it.
public enum Operation: String, CaseIterable, Sendable {
  case push
  case pop
  case present
  case dismiss
  case back
  case replace
  case selectTab = "select-tab"
  case deeplink
  /// `PUT .../state`; in a batch, `{"op": "state", "path": [...]}`.
  case state
  /// `DELETE .../coordinators/{cid}`; in a batch, `{"op": "teardown", "coordinator": cid}`.
  case teardown
  case batch

  /// The name as clients send it; a batch element may also say `selectTab`.
  public init?(name: String) {
    if name == "selectTab" {
      self = .selectTab
      return
    }
    self.init(rawValue: name)
  }

  /// The operations that are a `POST` of their own under `/v1/sessions/{sid}/`.
  public static let posted: [Operation] = [
    .push, .pop, .present, .dismiss, .back, .replace, .selectTab, .deeplink, .batch,
  ]

  /// Whether it may stop a coordinator the user is leaving, and so takes `discard`.
  public var isDiscardable: Bool {
    switch self {
    case .pop, .dismiss, .back, .replace, .state, .deeplink, .batch: true
    case .push, .present, .selectTab, .teardown: false
    }
  }
}

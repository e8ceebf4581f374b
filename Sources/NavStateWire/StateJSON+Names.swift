import NavigationCore

// The fixed words of the JSON shapes as compile-time strings: written as they are, with no
// String made and no check for characters to escape.

extension Presentation {
  package var jsonName: StaticString {
    switch self {
    case .root: "root"
    case .push: "push"
    case .sheet: "sheet"
    case .fullScreenCover: "fullScreenCover"
    case .tab: "tab"
    }
  }
}

extension StopReason {
  package var jsonName: StaticString {
    switch self {
    case .pop: "pop"
    case .dismiss: "dismiss"
    case .replace: "replace"
    case .reset: "reset"
    case .teardown: "teardown"
    case .sessionEnded: "sessionEnded"
    case .migrated: "migrated"
    case .resolved: "resolved"
    case .requirementLost: "requirementLost"
    }
  }
}

extension SessionEndReason {
  package var jsonName: StaticString {
    switch self {
    case .deleted: "deleted"
    case .expired: "expired"
    }
  }
}

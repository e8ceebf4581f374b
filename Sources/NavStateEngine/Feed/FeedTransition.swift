package import NavigationCore

/// How a `screen.viewed` came about: the operation that last changed the active coordinator.
package enum FeedTransition: String, Sendable, CaseIterable {
  case start, push, pop, present, dismiss, replace, tab, deeplink, state, redirect, resume
  case restore, migrate, teardown, requirementLost

  /// The transition `command` makes, given the events it made. A redirect or a pending request
  /// applied names the screen it led to, whatever the operation; a batch is named by
  /// ``batch(_:from:)``.
  package static func of(_ command: Command, events: [NavigationEvent]) -> FeedTransition {
    for event in events {
      switch event.kind {
      case .navigationRedirected: return .redirect
      case .pendingApplied: return .resume
      default: continue
      }
    }
    return named(command, events: events)
  }

  private static func named(_ command: Command, events: [NavigationEvent]) -> FeedTransition {
    switch command {
    case .push: return .push
    case .pop: return .pop
    case .back:
      // Back closes a modal when one is on top, else pops.
      let closedModal = events.contains { event in
        if case .stopped(_, _, .dismiss) = event.kind { return true }
        return false
      }
      return closedModal ? .dismiss : .pop
    case .present: return .present
    case .dismiss: return .dismiss
    case .replace: return .replace
    case .selectTab: return .tab
    case .setPath: return .state
    case .restore: return .restore
    case .deepLink: return .deeplink
    case .teardown: return .teardown
    case .setContext: return .requirementLost
    case .setLeaveGuard, .createShare, .revokeShare: return .state
    case .discarding(let inner): return named(inner, events: events)
    case .batch(let commands): return commands.last.map { named($0, events: events) } ?? .state
    }
  }

  /// A batch is named by the element that last changed the active coordinator: the elements
  /// are applied again, one by one, to a scratch copy of the state before the batch.
  package static func batch(_ commands: [Command], from before: NavigationState)
    -> FeedTransition
  {
    var scratch = before
    var active = scratch.activeID
    var named = FeedTransition.state
    for command in commands {
      guard let events = try? scratch.apply(command) else { break }
      let now = scratch.activeID
      if now != active {
        named = of(command, events: events)
        active = now
      }
    }
    return named
  }
}

import NavJSON

extension NavigationState {
  func resolveRoute(_ name: String) throws(NavigationError) -> Route {
    guard let route = graph.route(named: name) else {
      throw NavigationError(.unknownRoute, "graph '\(graph.name)' has no route \(quoted(name))")
    }
    return route
  }

  /// Checks the client's params against the route's declarations and fills in defaults.
  func normalizedParams(_ given: JSONObject, for route: Route) throws(NavigationError) -> Params {
    var params = Params(minimumCapacity: route.paramSpecs.count)
    for member in given.members {
      guard let spec = route.paramSpecs[member.key] else {
        throw NavigationError(
          .invalidParams, "route '\(route.name)' has no param \(quoted(member.key))")
      }
      guard let value = spec.type.convert(member.value) else {
        throw NavigationError(
          .invalidParams,
          "param '\(member.key)' of route '\(route.name)' must be \(spec.type.rawValue), not \(member.value.kindName)"
        )
      }
      params[member.key] = value
    }
    for (name, spec) in route.paramSpecs where params[name] == nil {
      if let value = spec.defaultValue {
        params[name] = value
      } else if spec.required {
        throw NavigationError(
          .invalidParams, "route '\(route.name)' needs param '\(name)' (\(spec.type.rawValue))")
      }
    }
    return params
  }

  func defaultParams(for route: Route) -> Params {
    var params: Params = [:]
    for (name, spec) in route.paramSpecs {
      if let value = spec.defaultValue { params[name] = value }
    }
    return params
  }

  func coordinator(_ id: CoordinatorID) throws(NavigationError) -> Coordinator {
    if let node = coordinators[id] { return node }
    if wasIssued(id) {
      throw NavigationError(.coordinatorStopped, "coordinator \(id) has already stopped")
    }
    throw NavigationError(
      .unknownCoordinator, "no coordinator \(id) was ever started in this session")
  }

  /// Whether `route` may be shown with `presentation` from a coordinator showing `parentRoute`.
  func isShowable(_ route: Route, as presentation: Presentation, from parentRoute: String) -> Bool {
    guard let parent = graph.route(named: parentRoute) else { return false }
    return isShowable(route, as: presentation, from: parent)
  }

  /// The same rule, with the parent's route already at hand.
  func isShowable(_ route: Route, as presentation: Presentation, from parent: Route) -> Bool {
    parent.mayShow(route, as: presentation)
  }

  /// Checks that `route` may be shown with `presentation` from a coordinator showing `parentRoute`.
  func checkShowable(_ route: Route, as presentation: Presentation, from parentRoute: String)
    throws(NavigationError)
  {
    guard route.presentations.contains(presentation) else {
      let allowed = Presentation.explicit.filter { route.presentations.contains($0) }.map(
        \.rawValue)
      throw NavigationError(
        .presentationNotAllowed,
        "route '\(route.name)' may not be shown as \(presentation.rawValue) (only \(allowed.joined(separator: ", ")))"
      )
    }
    // The graph's successor tables hold this rule worked out per parent: one lookup and a short
    // scan instead of two set lookups and a route copy.
    let showable =
      if let parentIndex = graph.index(of: parentRoute),
        let choices = graph.successors[parentIndex].choices(as: presentation)
      {
        choices.names.contains(route.name)
      } else {
        isShowable(route, as: presentation, from: parentRoute)
      }
    guard showable else {
      throw NavigationError(
        .routeNotAllowed, "route '\(route.name)' may not be shown from '\(parentRoute)'")
    }
  }
}

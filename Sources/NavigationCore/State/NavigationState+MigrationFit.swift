/// The questions a migration asks of each coordinator: may it stay, and with which params.
extension NavigationState {
  /// `params` fitted to `route`: undeclared params and values no longer of their declared type
  /// are dropped (an int still fits a number), missing defaults are filled in. Nil when a required
  /// param is then missing: the coordinator cannot stay.
  func fittedParams(_ params: Params, for route: Route) -> Params? {
    var fitted = Params(minimumCapacity: route.paramSpecs.count)
    for (name, value) in params {
      guard let spec = route.paramSpecs[name], let converted = spec.type.convert(value.json) else {
        continue
      }
      fitted[name] = converted
    }
    for (name, spec) in route.paramSpecs where fitted[name] == nil {
      if let value = spec.defaultValue {
        fitted[name] = value
      } else if spec.required {
        return nil
      }
    }
    return fitted
  }

  /// Whether `params` are exactly what `fittedParams` would make of them, found without building
  /// anything: a dry run asks this of every coordinator of every session.
  func paramsFitAsTheyAre(_ params: Params, for route: Route) -> Bool {
    for (name, value) in params {
      guard let spec = route.paramSpecs[name], value.isOf(spec.type) else { return false }
    }
    for (name, spec) in route.paramSpecs where params[name] == nil {
      if spec.defaultValue != nil || spec.required { return false }
    }
    return true
  }

  /// Whether, under the last of `graphs` (the newer versions of this state's graph, in order),
  /// every coordinator stays as it is: same route name, same params, allowed where it is, open.
  /// Reads the tree in place and builds nothing, so that a dry run over many sessions costs a
  /// walk of each and no copies.
  func staysAsItIs(through graphs: [RouteGraph], isOpen: (Route) -> Bool) -> Bool {
    guard let next = graphs.last else { return true }
    for node in coordinators.values {
      guard GraphMigration.fate(of: node.route, through: graphs) == .shownAs(node.route),
        let route = next.route(named: node.route), isOpen(route),
        paramsFitAsTheyAre(node.params, for: route)
      else { return false }
      var tabRoutes: [String] = []
      for child in node.children where coordinators.presentation(of: child) == .tab {
        if let name = coordinators.route(of: child) { tabRoutes.append(name) }
      }
      guard tabRoutes == (route.tabs ?? []) else { return false }
      switch node.presentation {
      case .root:
        guard next.mayBeRoot(route) else { return false }
      case .tab:
        break  // checked by its container, just above
      case .push, .sheet, .fullScreenCover:
        guard let parentName = node.parent.flatMap(coordinators.route(of:)),
          let parent = next.route(named: parentName), parent.mayShow(route, as: node.presentation)
        else { return false }
      }
    }
    return true
  }
}

extension ParamValue {
  func isOf(_ type: ParamType) -> Bool {
    switch (self, type) {
    case (.string, .string), (.int, .int), (.number, .number), (.bool, .bool): true
    default: false
    }
  }
}

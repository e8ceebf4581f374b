public import NavJSON
public import NavigationCore

/// Route graphs and migration reports as the v1 API writes them (`GET /v1/graphs/{name}`, the
/// answers of a graph load, its dry run and a migration).
public enum GraphJSON {
  /// A graph in the same format as the files it is loaded from.
  public static func write(_ graph: RouteGraph, into writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("name")
    writer.string(graph.name)
    writer.key("version")
    writer.int(graph.version)
    writer.key("root")
    writer.string(graph.rootRoute)
    writer.key("routes")
    writer.beginArray()
    for route in graph.routes {
      writer.beginObject()
      writer.key("name")
      writer.string(route.name)
      writer.key("path")
      writer.string(route.path)
      writer.key("params")
      writer.beginObject()
      for (name, spec) in route.params {
        writer.key(named: name)
        writer.beginObject()
        writer.key("type")
        writer.string(spec.type.rawValue)
        writer.key("required")
        writer.bool(spec.required)
        if let value = spec.defaultValue {
          writer.key("default")
          writer.value(value.json)
        }
        if spec.sensitive {
          writer.key("sensitive")
          writer.bool(true)
        }
        writer.endObject()
      }
      writer.endObject()
      writer.key("presentation")
      writer.string(route.presentation.rawValue)
      writer.key("presentations")
      writer.beginArray()
      for presentation in Presentation.explicit where route.presentations.contains(presentation) {
        writer.string(presentation.rawValue)
      }
      writer.endArray()
      // Written even when absent (null: any route), so that a typed client that cannot tell an
      // absent list from an empty one (`next: []`, none) sends back what it read.
      writer.key("next")
      if let next = route.next {
        writer.beginArray()
        for name in next.sorted() { writer.string(name) }
        writer.endArray()
      } else {
        writer.null()
      }
      if let tabs = route.tabs {
        writer.key("tabs")
        writer.beginArray()
        for name in tabs { writer.string(name) }
        writer.endArray()
      }
      writer.key("root")
      writer.bool(graph.mayBeRoot(route))
      if let routeGuard = graph.routeGuard(of: route.name) {
        writer.key("requires")
        writer.beginObject()
        for requirement in routeGuard.requires {
          writer.key(named: requirement.key)
          if requirement.accepted.count == 1, let only = requirement.accepted.first {
            writer.value(only.json)
          } else {
            writer.beginArray()
            for value in requirement.accepted { writer.value(value.json) }
            writer.endArray()
          }
        }
        writer.endObject()
        if let redirect = routeGuard.redirect {
          writer.key("redirect")
          writer.plainString(redirect)
        }
      }
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
  }

  /// `{sessions, unchanged, migrated, stopped: {route: count}, restarted}`
  public static func encode(_ report: MigrationReport) -> [UInt8] {
    var writer = JSONWriter(capacity: 256)
    writer.beginObject()
    writer.key("sessions")
    writer.int(report.sessions)
    writer.key("unchanged")
    writer.int(report.unchanged)
    writer.key("migrated")
    writer.int(report.migrated)
    writer.key("stopped")
    writer.beginObject()
    for route in report.stopped.keys.sorted() {
      writer.key(named: route)
      writer.int(report.stopped[route] ?? 0)
    }
    writer.endObject()
    writer.key("restarted")
    writer.int(report.restarted)
    writer.endObject()
    return writer.bytes
  }
}

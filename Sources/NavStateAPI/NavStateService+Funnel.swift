import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavStateWire
import NavigationCore

/// `POST /v1/analytics/funnel {graph, steps, withinSeconds?, since?, until?}` (backend only):
/// counted over the feed's kept `screen.viewed` items.
extension NavStateService {
  func funnel(_ request: HTTPRequest) throws(APIProblem) -> HTTPResponse {
    try requireBackend(request, for: "funnels")
    try checkNodeNamed(request)
    let funnel = try Self.funnelRequest(try Self.jsonBody(request))
    let report: Funnel.Report
    if let shared = store.sharedFeed {
      var views: [SessionID: [(at: Timestamp, screen: String)]] = [:]
      try Self.sharedFeedCall { () throws(SharedFeedRefusal) in
        try shared.forEachView { funnel.collect($0, into: &views) }
      }
      report = funnel.report(views)
    } else {
      report = funnel.report(funnel.views(in: store.feed.snapshot()))
    }
    var writer = JSONWriter(capacity: 512 + report.exits.count * 96)
    writer.beginObject()
    writer.key("steps")
    writer.beginArray()
    for step in report.steps {
      writer.beginObject()
      writer.key("route")
      writer.string(step.route)
      writer.key("sessions")
      writer.int(step.sessions)
      writer.key("medianSecondsFromPrevious")
      if let median = step.medianSecondsFromPrevious {
        writer.double(median)
      } else {
        writer.null()
      }
      writer.endObject()
    }
    writer.endArray()
    writer.key("exits")
    writer.beginArray()
    for exit in report.exits {
      writer.beginObject()
      writer.key("after")
      writer.string(exit.after)
      writer.key("to")
      if let to = exit.to { writer.string(to) } else { writer.null() }
      writer.key("sessions")
      writer.int(exit.sessions)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return Self.json(200, writer)
  }

  /// The body read and checked: 400 `invalid_request` naming what is wrong.
  static func funnelRequest(_ body: JSONValue?) throws(APIProblem) -> Funnel {
    func invalid(_ detail: String) -> APIProblem {
      APIProblem(status: 400, code: "invalid_request", title: "Invalid request", detail: detail)
    }
    guard let object = body?.objectValue else {
      throw invalid("the body must be an object {graph, steps, withinSeconds?, since?, until?}")
    }
    let known: Set<String> = ["graph", "steps", "withinSeconds", "since", "until"]
    for member in object.members where !known.contains(member.key) {
      throw invalid("unknown member \(quoted(member.key))")
    }
    guard let graph = object["graph"]?.stringValue, !graph.isEmpty else {
      throw invalid("'graph' must be a graph's name")
    }
    guard let list = object["steps"]?.arrayValue, (2...10).contains(list.count) else {
      throw invalid("'steps' must be an array of 2 to 10 route names")
    }
    var steps: [String] = []
    for element in list {
      guard let route = element.stringValue, !route.isEmpty else {
        throw invalid("'steps' must hold route names (strings)")
      }
      steps.append(route)
    }
    var within = 1800.0
    if let value = object["withinSeconds"] {
      guard let seconds = value.doubleValue, seconds > 0, seconds <= 31_536_000 else {
        throw invalid("'withinSeconds' must be a number of seconds above 0, at most a year")
      }
      within = seconds
    }
    func time(_ name: String) throws(APIProblem) -> Timestamp? {
      guard let value = object[name] else { return nil }
      guard let text = value.stringValue, let time = Timestamp(rfc3339: text) else {
        throw invalid("'\(name)' must be an RFC 3339 time, such as 2026-11-27T09:00:00Z")
      }
      return time
    }
    let since = try time("since")
    let until = try time("until")
    if let since, let until, until < since {
      throw invalid("'until' is before 'since'")
    }
    return Funnel(graph: graph, steps: steps, withinSeconds: within, since: since, until: until)
  }
}

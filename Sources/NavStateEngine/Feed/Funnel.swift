package import NavStateWire

/// A funnel over the feed's `screen.viewed` items (`POST /v1/analytics/funnel`): how many
/// sessions viewed each step in order, within a time of their first, and where the ones that
/// stopped went instead.
package struct Funnel: Sendable {
  package var graph: String
  package var steps: [String]
  package var withinMilliseconds: Int64
  package var since: Timestamp?
  package var until: Timestamp?

  package struct Step: Sendable, Equatable {
    package var route: String
    package var sessions: Int
    /// The median time from the step before, in seconds; nil for the first step.
    package var medianSecondsFromPrevious: Double?
  }

  package struct Exit: Sendable, Equatable {
    /// The step reached.
    package var after: String
    /// The screen viewed next instead of the step after it; nil when none was.
    package var to: String?
    package var sessions: Int
  }

  package struct Report: Sendable, Equatable {
    package var steps: [Step]
    package var exits: [Exit]
  }

  package init(
    graph: String, steps: [String], withinSeconds: Double, since: Timestamp?, until: Timestamp?
  ) {
    self.graph = graph
    self.steps = steps
    withinMilliseconds = Int64(withinSeconds * 1000)
    self.since = since
    self.until = until
  }

  /// Counts over `views` (one session's `screen.viewed`, in order, per key).
  package func report(_ views: [SessionID: [(at: Timestamp, screen: String)]]) -> Report {
    var reached = [Int](repeating: 0, count: steps.count)
    var gaps = [[Int64]](repeating: [], count: steps.count)
    var exits = [[String?: Int]](repeating: [:], count: steps.count)
    for (_, viewed) in views {
      guard let start = viewed.firstIndex(where: { $0.screen == steps[0] }) else { continue }
      let first = viewed[start].at.milliseconds
      var position = start
      var step = 0
      reached[0] += 1
      while step + 1 < steps.count {
        let wanted = steps[step + 1]
        let found = viewed[(position + 1)...].firstIndex { view in
          view.screen == wanted && view.at.milliseconds - first <= withinMilliseconds
        }
        guard let found else {
          let next = position + 1 < viewed.count ? viewed[position + 1].screen : nil
          exits[step][next, default: 0] += 1
          break
        }
        gaps[step + 1].append(viewed[found].at.milliseconds - viewed[position].at.milliseconds)
        position = found
        step += 1
        reached[step] += 1
      }
    }
    let reportedSteps = steps.indices.map { index in
      Step(
        route: steps[index], sessions: reached[index],
        medianSecondsFromPrevious: index == 0 ? nil : Self.median(gaps[index]))
    }
    var reportedExits: [Exit] = []
    for index in steps.indices {
      let sorted = exits[index].sorted { left, right in
        left.value != right.value ? left.value > right.value : (left.key ?? "") < (right.key ?? "")
      }
      for (to, count) in sorted.prefix(10) {
        reportedExits.append(Exit(after: steps[index], to: to, sessions: count))
      }
    }
    return Report(steps: reportedSteps, exits: reportedExits)
  }

  /// The views of every session on the funnel's graph within `since`…`until`, from the feed.
  package func views(in snapshot: FeedLog.Snapshot) -> [SessionID: [(
    at: Timestamp, screen: String
  )]] {
    var views: [SessionID: [(at: Timestamp, screen: String)]] = [:]
    snapshot.forEach(after: 0) { item in
      collect(item, into: &views)
      return true
    }
    return views
  }

  /// Adds `item` to `views` if it is a view the funnel counts (items come in feed order).
  package func collect(
    _ item: FeedItem, into views: inout [SessionID: [(at: Timestamp, screen: String)]]
  ) {
    guard let screen = item.viewedScreen, item.graph == graph else { return }
    if let since, item.at < since { return }
    if let until, until < item.at { return }
    views[item.session, default: []].append((item.at, screen))
  }

  static func median(_ values: [Int64]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    let millis =
      sorted.count % 2 == 1
      ? Double(sorted[middle]) : Double(sorted[middle - 1] + sorted[middle]) / 2
    return millis / 1000
  }
}

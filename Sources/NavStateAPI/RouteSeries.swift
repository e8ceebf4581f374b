import MicroHTTPServer
import Synchronization

/// One route's request counts (by method and status) and duration histogram. The router holds
/// it (through the observer it was given for the route), so a request records with no lookup:
/// a free stripe's lock, a short scan, a few additions. The counts are kept in stripes, each
/// under a lock of its own, and a request takes the first one free: with one lock, a holder
/// preempted among a write load's dozens of threads made the others spin in `Mutex`'s slow
/// path (about a thousand pauses each), 6% of a node's time.
final class RouteSeries: Sendable {
  /// Upper bounds of the duration buckets, in nanoseconds, and as Prometheus writes them.
  static let bounds: [Int64] = [
    50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000,
    50_000_000, 100_000_000, 250_000_000, 1_000_000_000,
  ]
  static let boundLabels = [
    "0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05",
    "0.1", "0.25", "1.0",
  ]

  struct Counts: Sendable {
    /// Requests by method and status (a route sees a handful of these).
    var requests: [(method: String, status: Int, count: Int)] = []
    /// Per bucket (not cumulative), the last one past every bound.
    var buckets = [Int](repeating: 0, count: RouteSeries.bounds.count + 1)
    var totalNanoseconds: Int64 = 0
  }

  private final class Stripe: Sendable {
    let counts = Mutex(Counts())
  }

  let route: String
  private let stripes = (0..<8).map { _ in Stripe() }
  private let nextStripe = Atomic<UInt>(0)

  init(route: String) {
    self.route = route
  }

  func record(_ summary: RequestSummary) {
    let nanoseconds = max(0, summary.nanoseconds)
    var bucket = 0
    while bucket < Self.bounds.count && nanoseconds > Self.bounds[bucket] { bucket += 1 }
    let add = { (counts: inout Counts) in
      if let position = counts.requests.firstIndex(where: {
        $0.status == summary.status && $0.method == summary.method
      }) {
        counts.requests[position].count += 1
      } else {
        counts.requests.append((summary.method, summary.status, 1))
      }
      counts.buckets[bucket] += 1
      counts.totalNanoseconds += nanoseconds
    }
    let start = Int(nextStripe.wrappingAdd(1, ordering: .relaxed).oldValue % UInt(stripes.count))
    for offset in 0..<stripes.count {
      let stripe = stripes[(start + offset) % stripes.count]
      if stripe.counts.withLockIfAvailable({ add(&$0) }) != nil { return }
    }
    stripes[start].counts.withLock { add(&$0) }
  }

  /// The stripes' counts added up.
  var snapshot: Counts {
    var total = Counts()
    for stripe in stripes {
      let counts = stripe.counts.withLock { $0 }
      for entry in counts.requests {
        if let position = total.requests.firstIndex(where: {
          $0.status == entry.status && $0.method == entry.method
        }) {
          total.requests[position].count += entry.count
        } else {
          total.requests.append(entry)
        }
      }
      for index in total.buckets.indices { total.buckets[index] += counts.buckets[index] }
      total.totalNanoseconds += counts.totalNanoseconds
    }
    return total
  }
}

/// The exposition of the request series, in Prometheus's text format.
enum RequestExposition {
  static func render(_ series: [RouteSeries]) -> [UInt8] {
    let snapshots = series.map { ($0.route, $0.snapshot) }
    var text =
      "# HELP navstate_http_requests_total Requests answered, by route pattern, method and status.\n"
    text += "# TYPE navstate_http_requests_total counter\n"
    for (route, counts) in snapshots {
      for entry in counts.requests {
        text += "navstate_http_requests_total{route=\(label(route)),method=\(label(entry.method))"
        text += ",status=\"\(entry.status)\"} \(entry.count)\n"
      }
    }
    text +=
      "# HELP navstate_http_request_duration_seconds Time in the route's handler (0 for constant routes).\n"
    text += "# TYPE navstate_http_request_duration_seconds histogram\n"
    for (route, counts) in snapshots {
      let total = counts.buckets.reduce(0, +)
      guard total > 0 else { continue }
      let name = "navstate_http_request_duration_seconds"
      var cumulative = 0
      for (index, bound) in RouteSeries.boundLabels.enumerated() {
        cumulative += counts.buckets[index]
        text += "\(name)_bucket{route=\(label(route)),le=\"\(bound)\"} \(cumulative)\n"
      }
      text += "\(name)_bucket{route=\(label(route)),le=\"+Inf\"} \(total)\n"
      text += "\(name)_sum{route=\(label(route))} \(Double(counts.totalNanoseconds) / 1e9)\n"
      text += "\(name)_count{route=\(label(route))} \(total)\n"
    }
    return Array(text.utf8)
  }

  /// A label value, quoted, with `\`, `"` and newlines escaped as the format requires.
  static func label(_ value: String) -> String {
    var escaped = "\""
    for character in value {
      switch character {
      case "\\": escaped += "\\\\"
      case "\"": escaped += "\\\""
      case "\n": escaped += "\\n"
      default: escaped.append(character)
      }
    }
    return escaped + "\""
  }
}

/// Which of two answers a request's `Accept` prefers (RFC 9110 section 12.5.1): each media
/// type gets the quality of the most specific range that matches it (`type/subtype`, then
/// `type/*`, then `*/*`), 0 when none does. `GET .../events` streams only when the event stream
/// is preferred over JSON: a typed client that lists both (as generated clients do) gets the
/// JSON list it can decode; an EventSource, which asks for the stream alone, gets the stream.
struct AcceptedMediaTypes {
  private struct Range {
    var type: Substring
    var subtype: Substring
    var quality: Double
  }

  private let ranges: [Range]

  init(_ header: String?) {
    guard let header else {
      ranges = []
      return
    }
    ranges = header.split(separator: ",").compactMap { element in
      let parts = element.split(separator: ";")
      guard let mediaRange = parts.first else { return nil }
      let halves = mediaRange.trimmed.lowercased().split(separator: "/", maxSplits: 1)
      guard halves.count == 2 else { return nil }
      var quality = 1.0
      for parameter in parts.dropFirst() {
        let pair = parameter.split(separator: "=", maxSplits: 1)
        if pair.count == 2, pair[0].trimmed.lowercased() == "q" {
          quality = Double(pair[1].trimmed).map { min(max($0, 0), 1) } ?? 0
        }
      }
      return Range(type: Substring(halves[0]), subtype: Substring(halves[1]), quality: quality)
    }
  }

  /// The quality the header gives `type/subtype`; 1 without a header (anything is acceptable).
  func quality(of type: String, _ subtype: String) -> Double {
    guard !ranges.isEmpty else { return 1 }
    var best: (specificity: Int, quality: Double) = (-1, 0)
    for range in ranges {
      let specificity: Int
      if range.type == type && range.subtype == subtype {
        specificity = 2
      } else if range.type == type && range.subtype == "*" {
        specificity = 1
      } else if range.type == "*" && range.subtype == "*" {
        specificity = 0
      } else {
        continue
      }
      if specificity > best.specificity { best = (specificity, range.quality) }
    }
    return best.quality
  }

  /// Whether the event stream is preferred over JSON; a tie goes to JSON.
  var prefersEventStream: Bool {
    quality(of: "text", "event-stream") > quality(of: "application", "json")
  }
}

extension Substring {
  fileprivate var trimmed: Substring {
    var text = self
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return text
  }
}

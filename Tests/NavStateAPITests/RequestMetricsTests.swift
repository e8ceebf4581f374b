import Dispatch
import MicroHTTPServer
import Testing

@testable import NavStateAPI

@Suite struct RequestMetricsTests {
  private func summary(_ method: String, _ status: Int, microseconds: Int64) -> RequestSummary {
    RequestSummary(
      route: "/x", method: method, status: status, duration: .microseconds(microseconds))
  }

  @Test func countsByMethodAndStatusAndTimesInCumulativeBuckets() {
    let series = RouteSeries(route: "/v1/sessions/{sid}")
    series.record(summary("GET", 200, microseconds: 40))
    series.record(summary("GET", 200, microseconds: 300))
    series.record(summary("GET", 404, microseconds: 2_000_000))
    series.record(summary("HEAD", 200, microseconds: 100))
    let lines = String(decoding: RequestExposition.render([series]), as: UTF8.self)
      .split(separator: "\n").map(String.init)
    let route = #"route="/v1/sessions/{sid}""#
    #expect(lines.contains(#"navstate_http_requests_total{\#(route),method="GET",status="200"} 2"#))
    #expect(lines.contains(#"navstate_http_requests_total{\#(route),method="GET",status="404"} 1"#))
    #expect(
      lines.contains(#"navstate_http_requests_total{\#(route),method="HEAD",status="200"} 1"#))
    let bucket = "navstate_http_request_duration_seconds_bucket{\(route)"
    #expect(lines.contains(#"\#(bucket),le="0.00005"} 1"#))
    #expect(lines.contains(#"\#(bucket),le="0.0001"} 2"#))  // 100 µs is within its bound
    #expect(lines.contains(#"\#(bucket),le="0.0005"} 3"#))
    #expect(lines.contains(#"\#(bucket),le="1.0"} 3"#))
    #expect(lines.contains(#"\#(bucket),le="+Inf"} 4"#))
    #expect(lines.contains(#"navstate_http_request_duration_seconds_count{\#(route)} 4"#))
    #expect(lines.contains(#"navstate_http_request_duration_seconds_sum{\#(route)} 2.00044"#))
  }

  /// The counts are kept in stripes that concurrent requests take in turn: none is lost.
  @Test func concurrentRequestsAreAllCounted() {
    let series = RouteSeries(route: "/v1/sessions/{sid}/batch")
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for index in 0..<2_000 {
        series.record(summary("POST", index % 4 == 0 ? 409 : 200, microseconds: 80))
      }
    }
    let counts = series.snapshot
    #expect(counts.requests.count == 2, "one entry per method and status, across stripes")
    #expect(counts.requests.first { $0.status == 200 }?.count == 12_000)
    #expect(counts.requests.first { $0.status == 409 }?.count == 4_000)
    #expect(counts.buckets[1] == 16_000)
    #expect(counts.buckets.reduce(0, +) == 16_000)
    #expect(counts.totalNanoseconds == 16_000 * 80_000)
  }

  @Test func labelValuesAreEscaped() {
    #expect(RequestExposition.label(#"a"b\c"#) == #""a\"b\\c""#)
    #expect(RequestExposition.label("a\nb") == #""a\nb""#)
  }
}

import Foundation
import NavJSON
import Testing

@testable import NavigationCore

/// Work that must grow linearly with its input, checked by how its time grows when the input
/// grows tenfold (or fourfold): linear work grows about as much, quadratic work a hundredfold
/// (or sixteenfold). Each time is the best of a few runs, so a busy machine slows both sides.
@Suite("Linear costs")
struct LinearCostTests {
  /// The best time of `runs` runs of `work`, in seconds.
  private func bestTime(runs: Int = 3, _ work: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
      let start = ContinuousClock.now
      try work()
      let elapsed = ContinuousClock.now - start
      best = min(
        best,
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }
    return best
  }

  /// A graph of `count` routes, none with `next` (each may be followed by any route): the shape
  /// that took quadratic time to load (every route got its own list of every route).
  private func graphBytes(routes count: Int) -> [UInt8] {
    var routes: [String] = []
    for index in 0..<count {
      routes.append(#"{"name":"r\#(index)","path":"/r\#(index)"}"#)
    }
    return Array(#"{"name":"big","root":"r0","routes":[\#(routes.joined(separator: ","))]}"#.utf8)
  }

  @Test("a graph of 10,000 routes loads in about ten times the time of 1,000")
  func graphLoading() throws {
    let small = graphBytes(routes: 1_000)
    let large = graphBytes(routes: 10_000)
    let graph = try RouteGraph.decode(large, source: "test")
    #expect(graph.routes.count == 10_000)
    let smallTime = try bestTime { _ = try RouteGraph.decode(small, source: "test") }
    let largeTime = try bestTime { _ = try RouteGraph.decode(large, source: "test") }
    // Linear: about 10; quadratic: about 100.
    #expect(largeTime / smallTime < 35, "1,000 routes: \(smallTime) s; 10,000: \(largeTime) s")
  }

  /// A graph whose routes form one redirect chain: each guarded, redirecting to the next.
  private func redirectChain(routes count: Int) -> [UInt8] {
    var routes: [String] = []
    for index in 0..<count - 1 {
      routes.append(
        #"{"name":"r\#(index)","requires":{"k":true},"redirect":"r\#(index + 1)"}"#)
    }
    routes.append(#"{"name":"r\#(count - 1)"}"#)
    return Array(#"{"name":"chain","root":"r0","routes":[\#(routes.joined(separator: ","))]}"#.utf8)
  }

  @Test("a graph of one redirect chain of 4,000 routes loads in about four times the time of 1,000")
  func redirectChains() throws {
    let small = redirectChain(routes: 1_000)
    let large = redirectChain(routes: 4_000)
    #expect(try RouteGraph.decode(large, source: "test").routes.count == 4_000)
    let smallTime = try bestTime { _ = try RouteGraph.decode(small, source: "test") }
    let largeTime = try bestTime { _ = try RouteGraph.decode(large, source: "test") }
    // Linear: about 4; quadratic: about 16; cubic (each route walked its whole chain, with a
    // linear search at each step, as before): about 64.
    #expect(largeTime / smallTime < 12, "1,000 routes: \(smallTime) s; 4,000: \(largeTime) s")
  }

  @Test("a batch of 240 pushes costs about four times one of 60")
  func batchLength() throws {
    func batch(_ count: Int) -> Command {
      .batch((1...count).map { .push(detail($0)) })
    }
    let limits = NavigationLimits(maxCoordinators: 256)
    let (start, _) = try NavigationState.start(graph: demoGraph, limits: limits)
    var check = start
    let events = try check.apply(batch(240))
    #expect(events.count == 240)
    let shortTime = try bestTime(runs: 5) {
      var state = start
      _ = try state.apply(batch(60))
    }
    let longTime = try bestTime(runs: 5) {
      var state = start
      _ = try state.apply(batch(240))
    }
    // Linear: about 4; quadratic in the depth: about 16.
    #expect(longTime / shortTime < 10, "60 pushes: \(shortTime) s; 240: \(longTime) s")
  }
}

import Testing

@testable import NavigationCore

/// A table's `shape` holds only ids, children and selected tabs; within one session, comparing
/// shapes must agree with full equality, since a coordinator's other fields never change.
@Suite struct TreeShapeTests {
  @Test func sameTreeAgreesWithFullEqualityWithinASession() throws {
    var equalPairs = 0
    var unequalPairs = 0
    for seed in 0..<300 as Range<UInt64> {
      var generator = CommandGenerator(seed: seed)
      var (state, _) = try NavigationState.start(
        graph: demoGraph, root: RouteRequest(route: generator.random.pick(CommandGenerator.roots)))
      var seen = [state.coordinators]
      for _ in 0..<40 {
        _ = try? state.apply(generator.command(in: state))
        for earlier in seen.suffix(6) {
          let equal = earlier == state.coordinators
          #expect((earlier.shape == state.coordinators.shape) == equal)
          if equal { equalPairs += 1 } else { unequalPairs += 1 }
        }
        seen.append(state.coordinators)
      }
    }
    // The walks come back to earlier trees often, and leave them as often.
    #expect(equalPairs > 500)
    #expect(unequalPairs > 500)
  }

  @Test func aChangedSelectedTabOrChildOrderIsAnotherTree() throws {
    var (state, _) = try NavigationState.start(graph: demoGraph, root: RouteRequest(route: "tabs"))
    let before = state.coordinators
    _ = try state.apply(.selectTab(.index(1)))
    #expect(before.shape != state.coordinators.shape)
    _ = try state.apply(.selectTab(.index(0)))
    #expect(before.shape == state.coordinators.shape)
    _ = try state.apply(.push(detail(1)))
    #expect(before.shape != state.coordinators.shape)
  }
}

import NavJSON
import NavigationCore
import Testing

@testable import NavStateEngine

/// A change with an `Idempotency-Key` in one engine call: claim, apply and settle under one
/// lock; a refusal keeps the key claimed for the API to settle once worded.
@Suite struct KeyedChangeTests {
  private let push = Command.push(
    RouteRequest(route: "detail", params: ["id": 1]), target: nil, singleTop: false)

  private func session() throws -> (SessionStore, SessionRecord) {
    let store = SessionStore(
      graphs: try BuiltInGraphs.load(), defaultGraph: "demo", configuration: StoreConfiguration())
    return (store, try store.createSession(graph: nil, root: nil, client: "test").record)
  }

  private func claim(_ key: String = "k", body: String = "{}") -> IdempotencyClaim {
    IdempotencyClaim(
      key: key,
      fingerprint: IdempotencyLedger.fingerprint(
        method: "POST", path: "/v1/sessions/s/push", body: Array(body.utf8)))
  }

  private func refusal(_ status: Int, _ fingerprint: [UInt8]) -> IdempotencyLedger.Decision {
    .init(fingerprint: fingerprint, status: status, headers: [], body: Array("{}".utf8))
  }

  @Test("a change settles its key in the call that applies it; a repeat is its answer again")
  func settledInOneCall() throws {
    let (store, record) = try session()
    let first = claim()
    let applied = try store.apply(
      push, to: record, precondition: nil, minimal: true, idempotency: first)
    #expect(first.isSettled)
    #expect(applied.version == 2)
    #expect(applied.replay == nil)
    let body = applied.answer.bytes

    let repeated = claim()
    let again = try store.apply(
      push, to: record, precondition: nil, minimal: true, idempotency: repeated)
    #expect(repeated.isSettled)
    #expect(again.replay?.body == body)
    #expect(again.replay?.status == 200)
    #expect(try store.state(of: record).version == 2)
  }

  @Test("a refused change keeps its key claimed: a repeat is in use until the API settles it")
  func refusalSettledByTheCaller() throws {
    let (store, record) = try session()
    let first = claim()
    #expect(throws: EngineRefusal.self) {
      _ = try store.apply(.pop(), to: record, precondition: nil, minimal: false, idempotency: first)
    }
    #expect(!first.isSettled)
    #expect {
      _ = try store.apply(
        .pop(), to: record, precondition: nil, minimal: false, idempotency: claim())
    } throws: { error in
      if case .idempotencyKeyInUse = error as? EngineRefusal { return true }
      return false
    }
    let decision = refusal(409, first.fingerprint)
    #expect(store.decide(first, of: record, with: decision) == .claimed)
    let replayed = try store.apply(
      .pop(), to: record, precondition: nil, minimal: false, idempotency: claim())
    #expect(replayed.replay == decision)
  }

  @Test("another request under a decided key is reused, at the change and at the API's settle")
  func reusedKey() throws {
    let (store, record) = try session()
    _ = try store.apply(push, to: record, precondition: nil, minimal: true, idempotency: claim())
    let other = claim(body: #"{"route":"other"}"#)
    #expect {
      _ = try store.apply(push, to: record, precondition: nil, minimal: true, idempotency: other)
    } throws: { error in
      if case .idempotencyKeyReused = error as? EngineRefusal { return true }
      return false
    }
    // A request refused before the engine (its body is no command) settles a key nobody holds,
    // and is told when the key is another request's.
    #expect(store.decide(other, of: record, with: refusal(400, other.fingerprint)) == .reused)
    let fresh = claim("fresh", body: "not json")
    #expect(store.decide(fresh, of: record, with: refusal(400, fresh.fingerprint)) == .claimed)
    let repeated2 = claim("fresh", body: "not json")
    #expect(
      store.decide(repeated2, of: record, with: refusal(400, repeated2.fingerprint))
        == .replay(refusal(400, fresh.fingerprint)))
  }

  @Test("a 5xx frees the key its change claimed, so a retry is decided afresh")
  func failureFreesTheKey() throws {
    let (store, record) = try session()
    let first = claim()
    #expect(throws: EngineRefusal.self) {
      _ = try store.apply(.pop(), to: record, precondition: nil, minimal: false, idempotency: first)
    }
    #expect(store.decide(first, of: record, with: nil) == .claimed)
    let retry = claim()
    let applied = try store.apply(
      push, to: record, precondition: nil, minimal: true, idempotency: retry)
    #expect(retry.isSettled)
    #expect(applied.version == 2)
  }

  @Test("only the call that claimed a key settles it")
  func onlyTheOwnerSettles() throws {
    let (store, record) = try session()
    let first = claim()
    #expect(throws: EngineRefusal.self) {
      _ = try store.apply(.pop(), to: record, precondition: nil, minimal: false, idempotency: first)
    }
    let stranger = claim()
    #expect(store.decide(stranger, of: record, with: refusal(409, stranger.fingerprint)) == .inUse)
    #expect(store.decide(first, of: record, with: refusal(409, first.fingerprint)) == .claimed)
  }
}

import Dispatch
import NavJSON
import NavigationCore
import Synchronization
import Testing

@testable import NavStateEngine

/// A store that confirms later (`--fsync always`, or a database): a change is sent to streams
/// and answered only once kept, waited for with the session's lock let go (reads go on), and
/// undone when the store fails it.
@Suite struct DeferredConfirmationTests {
  /// Confirms each change once the test opens its gate, with the answer the test chose.
  final class GatedStorage: SessionStorage, @unchecked Sendable {
    let gate = DispatchSemaphore(value: 0)
    let queued = DispatchSemaphore(value: 0)
    let keeps: Bool
    var confirmsLater: Bool { true }

    init(keeps: Bool) { self.keeps = keeps }

    private struct Gated: StorageConfirmation {
      let storage: GatedStorage
      func wait() -> Bool {
        storage.gate.wait()
        return storage.keeps
      }
    }

    func recordCreation(
      of session: SessionRecord, _ data: SessionRecord.Data, feed: [FeedItem]
    ) -> StorageReceipt {
      .stored
    }
    func recordChange(
      of session: SessionRecord, _ command: Command, data: SessionRecord.Data,
      decided: (key: String, decision: IdempotencyLedger.Decision)?, feed: [FeedItem]
    ) -> StorageReceipt {
      queued.signal()
      return .pending(Gated(storage: self))
    }
    func recordDecision(
      of session: SessionRecord, key: String, _ decision: IdempotencyLedger.Decision
    ) -> StorageReceipt { .stored }
    func recordEnd(of session: SessionRecord, feed: [FeedItem]) -> StorageReceipt { .stored }
    func recordMigration(
      of session: SessionRecord, data: SessionRecord.Data, from: Int, feed: [FeedItem]
    )
      -> StorageReceipt
    { .stored }
    func recordGraph(_ version: GraphCatalog.Version) -> Bool { true }
  }

  /// An open stream that keeps what it was sent.
  final class RecordingSink: EventSink, @unchecked Sendable {
    let received = Mutex<[String]>([])
    func write(_ bytes: [UInt8]) -> Bool {
      let text = String(decoding: bytes, as: UTF8.self)
      received.withLock { $0.append(text) }
      return true
    }
    func finish() {}
    var events: [String] {
      received.withLock { $0 }.joined().split(separator: "\n").filter { $0.hasPrefix("event: ") }
        .map { String($0.dropFirst(7)) }
    }
  }

  private func session(_ storage: GatedStorage) throws -> (
    SessionStore, SessionRecord, RecordingSink
  ) {
    let store = SessionStore(
      graphs: try BuiltInGraphs.load(), defaultGraph: "demo", configuration: StoreConfiguration())
    store.attach(storage)
    let created = try store.createSession(graph: nil, root: nil, client: "test")
    let record = created.record
    let sink = RecordingSink()
    _ = try store.followEvents(of: record, after: 0, client: "test") { _, _ in sink }
    return (store, record, sink)
  }

  private func version(_ store: SessionStore, _ record: SessionRecord) throws -> Int {
    try store.state(of: record).version
  }

  @Test("a change is sent to streams only once kept; reads go on while it waits")
  func keptThenPublished() throws {
    let storage = GatedStorage(keeps: true)
    let (store, record, sink) = try session(storage)
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Int?>(nil)
    DispatchQueue.global().async {
      do {
        let applied = try store.apply(
          .push(RouteRequest(route: "detail", params: ["id": 1]), target: nil, singleTop: false),
          to: record, precondition: nil, minimal: true)
        let version = applied.version
        outcome.withLock { $0 = version }
      } catch {
        outcome.withLock { $0 = -1 }
      }
      done.signal()
    }
    storage.queued.wait()
    // Queued, not kept: a read answers (the session's lock is free), no stream has it (the
    // stream holds the creation's event alone).
    #expect(try version(store, record) == 2)
    #expect(sink.events == ["coordinator.started"])
    #expect(done.wait(timeout: .now() + 0.2) == .timedOut)
    storage.gate.signal()
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(outcome.withLock { $0 } == 2)
    #expect(sink.events == ["coordinator.started", "coordinator.started"])
  }

  @Test("a change its store fails is undone, refused, and never sent to streams")
  func failedThenUndone() throws {
    let storage = GatedStorage(keeps: false)
    let (store, record, sink) = try session(storage)
    storage.gate.signal()
    var refusedForStorage = false
    do {
      _ = try store.apply(
        .push(RouteRequest(route: "detail", params: ["id": 1]), target: nil, singleTop: false),
        to: record, precondition: nil, minimal: true)
    } catch {
      if case .journalUnavailable = error { refusedForStorage = true }
    }
    #expect(refusedForStorage)
    #expect(try version(store, record) == 1)
    #expect(sink.events == ["coordinator.started"])
    #expect(store.liveCoordinators == 1)
  }
}

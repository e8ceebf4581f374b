import Foundation
import NavStateWire
import NavigationCore
import Synchronization
import Testing

@testable import NavStateEngine
@testable import NavStatePersistence

#if canImport(Glibc)
  import Glibc
#endif

/// What a data directory does when it cannot be written or read as it should.
@Suite struct JournalFailureTests {
  private func directory() throws -> String {
    let path = NSTemporaryDirectory() + "navstate-journal-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    return path
  }

  private func store() throws -> SessionStore {
    SessionStore(
      graphs: try BuiltInGraphs.load(), defaultGraph: "demo", configuration: StoreConfiguration())
  }

  @Test("a deletion the journal cannot record is refused, and the session stays; an expiry ends")
  func deletionNeedsTheJournal() throws {
    let path = try directory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let store = try store()
    let (kept, _) = try store.create(graph: nil, root: nil, client: "a", now: .now())
    let (expiring, _) = try store.create(graph: nil, root: nil, client: "a", now: .now())
    // Every write to this journal fails, as on a full disk.
    try FileManager.default.createSymbolicLink(
      atPath: path + "/journal.0", withDestinationPath: "/dev/full")
    store.attach(try Journal(directory: path, generation: 0, policy: .always))
    #expect(throws: EngineRefusal.self) { try store.end(kept, reason: .deleted) }
    #expect(store.liveSessions == 2)
    #expect(kept.data.withLock { !$0.ended })
    let ended = try store.end(expiring, reason: .expired)
    #expect(ended.last?.kind == .sessionEnded(reason: .expired))
    #expect(store.liveSessions == 1)
  }

  @Test("a data directory whose files are not regular files, or links to nothing, does not load")
  func strangeFilesStopTheLoad() throws {
    for (name, target) in [
      ("snapshot", "/dev/zero"), ("journal.0", "/dev/zero"), ("snapshot", "/nowhere"),
    ] {
      let path = try directory()
      defer { try? FileManager.default.removeItem(atPath: path) }
      try FileManager.default.createSymbolicLink(
        atPath: path + "/" + name, withDestinationPath: target)
      let data = try DataDirectory(path: path)
      #expect(throws: DataDirectory.Failure.self, "\(name) -> \(target)") {
        _ = try data.load(into: try store(), journal: nil)
      }
    }
  }
}

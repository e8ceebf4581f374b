import Foundation
import NavJSON
import NavStateWire
import NavigationCore
import Synchronization
import Testing

@testable import NavStateEngine
@testable import NavStatePersistence

/// The feed in a data directory: its items ride with their change in one frame, and survive a
/// snapshot (which moves them into a feed file) and a torn last record (which loses the change
/// and its items together).
@Suite struct FeedPersistenceTests {
  private func store() throws -> SessionStore {
    SessionStore(
      graphs: try BuiltInGraphs.load(), defaultGraph: "demo", configuration: StoreConfiguration())
  }

  private func numbers(_ store: SessionStore) -> [UInt64] {
    var seen: [UInt64] = []
    store.feed.snapshot().forEach(after: 0) { item in
      seen.append(item.sequence)
      return true
    }
    return seen
  }

  /// A directory with one session that made `pushes` pushes; the store that made them.
  private func filled(_ path: String, pushes: Int) throws -> (SessionStore, SessionRecord) {
    let store = try store()
    let directory = try DataDirectory(path: path)
    _ = try directory.load(into: store, journal: .everysec)
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: .now())
    for index in 0..<pushes {
      _ = try store.apply(
        .push(RouteRequest(route: "detail", params: ["id": .int(index)])), to: record,
        precondition: nil, minimal: true)
    }
    _ = directory.journal?.finish()
    return (store, record)
  }

  @Test func aTornLastFrameLosesTheChangeAndItsItemsTogether() throws {
    let path = NSTemporaryDirectory() + "navstate-feed-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (made, record) = try filled(path, pushes: 3)
    #expect(numbers(made) == Array(1...8))
    let journal = Journal.path(path, 0)
    let bytes = try #require(try DataDirectory.readFile(journal))
    // Cut the last frame anywhere: its change and its two items go, the rest stays.
    for cut in [1, 10, 40] {
      try DataDirectory.replace(journal, with: Array(bytes.dropLast(cut)), directory: path)
      let restored = try store()
      _ = try DataDirectory(path: path).load(into: restored, journal: nil)
      let back = try #require(restored.registry[record.key])
      #expect(back.data.withLock { $0.navigation.version } == 3)
      #expect(numbers(restored) == Array(1...6), "cut \(cut)")
    }
  }

  @Test func aSnapshotMovesTheItemsIntoAFeedFileAndTheEpochStays() throws {
    let path = NSTemporaryDirectory() + "navstate-feed-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (made, _) = try filled(path, pushes: 2)
    let epoch = made.feedEpoch.load(ordering: .relaxed)
    do {
      // A second run takes a snapshot (and lets go of the directory at the end of the block).
      let directory = try DataDirectory(path: path)
      let second = try store()
      _ = try directory.load(into: second, journal: .everysec)
      #expect(second.feedEpoch.load(ordering: .relaxed) == epoch)
      try directory.saveSnapshot(of: second)
      _ = directory.journal?.finish()
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: path)
    #expect(names.contains { $0.hasPrefix("feed.") }, "\(names)")
    #expect(!names.contains("journal.0"))
    let third = try store()
    _ = try DataDirectory(path: path).load(into: third, journal: nil)
    #expect(numbers(third) == Array(1...6))
    #expect(third.feedEpoch.load(ordering: .relaxed) == epoch)
    #expect(third.feed.reserve(1) == 7)
  }
}

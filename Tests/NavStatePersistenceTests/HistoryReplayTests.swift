import NavJSON
import NavStateWire
import NavigationCore
import Synchronization
import Testing

@testable import NavStateEngine
@testable import NavStatePersistence

/// For random operation sequences, the state at every kept version equals the state the engine
/// answered at that version, also once the oldest versions went in chunks and after the
/// session's archive is read back.
@Suite struct HistoryReplayTests {
  private static let routes = ["detail", "settings", "profile", "compose"]

  /// A command from a small random walk over the demo graph (many are refused: that is fine).
  private static func command(_ random: inout SplitMix) -> Command {
    let route = routes[Int(random.next() % UInt64(routes.count))]
    let id = Int(random.next() % 5)
    switch random.next() % 7 {
    case 0, 1: return .push(RouteRequest(route: "detail", params: ["id": .int(id)]))
    case 2: return .pop()
    case 3: return .present(RouteRequest(route: route), style: .sheet)
    case 4: return .dismiss()
    case 5: return .back()
    default:
      return .batch([
        .push(RouteRequest(route: "detail", params: ["id": .int(id)])), .pop(),
        .push(RouteRequest(route: "detail", params: ["id": .int(id + 1)])),
      ])
    }
  }

  private func encoded(_ state: NavigationState) -> [UInt8] {
    var writer = JSONWriter(capacity: 1024)
    StateJSON.writeState(
      state, id: "s",
      times: SessionTimes(
        createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0),
        expiresAt: Timestamp(milliseconds: 0)), into: &writer)
    return writer.bytes
  }

  @Test("every kept version replays to the state answered then", arguments: [1, 2, 3])
  func everyKeptVersion(seed: UInt64) throws {
    var configuration = StoreConfiguration()
    configuration.historyVersions = 100
    let store = SessionStore(
      graphs: try BuiltInGraphs.load(), defaultGraph: "demo", configuration: configuration)
    let record = try store.createSession(graph: nil, root: nil, client: "test").record
    var answered: [Int: [UInt8]] = [1: record.data.withLock { encoded($0.navigation) }]
    var random = SplitMix(seed: seed)
    var attempts = 0
    while attempts < 2000, record.data.withLock({ $0.navigation.version }) < 400 {
      attempts += 1
      guard
        (try? store.apply(Self.command(&random), to: record, precondition: nil, minimal: true))
          != nil
      else { continue }
      record.data.withLock { data in answered[data.navigation.version] = encoded(data.navigation) }
    }
    let (newest, oldest) = record.data.withLock {
      ($0.navigation.version, $0.history.oldest(limit: configuration.historyVersions))
    }
    #expect(newest >= 300, "the walk made enough versions")
    #expect(oldest == newest - 99)
    func check(_ record: SessionRecord, _ what: String) throws {
      try record.data.withLock { data in
        #expect(data.history.oldestStored > 1, "the oldest versions went (\(what))")
        for version in oldest...newest {
          let (state, _) = try SessionStore.kept(
            version,
            of: SessionStore.Past(
              history: data.history, navigation: data.navigation, updatedAt: data.updatedAt,
              expiresAt: data.expiresAt),
            catalog: store.catalog, configuration: configuration)
          #expect(encoded(state) == answered[version], "version \(version) (\(what))")
        }
      }
    }
    try check(record, "live")
    // Read back from its archive (a snapshot): the same states.
    let archive = record.data.withLock { SessionArchive.encode(record, $0) }
    let restored = try SessionArchive.decode(
      archive, graph: { store.catalog.graph($0, version: 1) },
      historyGraph: { store.catalog.graph($0, version: $1) }, configuration: configuration)
    try check(restored, "archived")
  }

  @Test("entries read back as written")
  func entryCoding() {
    let entries: [SessionHistory.Entry] = [
      .init(
        version: 1, at: Timestamp(milliseconds: 1_700_000_000_123), by: .backend,
        change: .create(
          graphVersion: 2, root: RouteRequest(route: "detail", params: ["id": 3]),
          context: SessionContext())),
      .init(
        version: 2, at: Timestamp(milliseconds: 1_700_000_000_200), by: .client,
        change: .command(.restore(version: 1, path: [PathEntry(route: "a", presentation: .root)]))),
      .init(
        version: 3, at: Timestamp(milliseconds: 1_700_000_000_300), by: .server,
        change: .migrate(from: 2, to: 3)),
    ]
    var bytes: [UInt8] = []
    for entry in entries { SessionHistory.append(entry, to: &bytes) }
    var reader = ByteReader(bytes)
    var read: [SessionHistory.Entry] = []
    while let entry = SessionHistory.read(&reader) { read.append(entry) }
    #expect(read == entries)
    #expect(SessionHistory(restoring: bytes, base: nil) != nil)
    #expect(SessionHistory(restoring: Array(bytes.dropLast()), base: nil) == nil)
  }
}

/// A small deterministic generator, so that a failing walk can be run again.
struct SplitMix {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

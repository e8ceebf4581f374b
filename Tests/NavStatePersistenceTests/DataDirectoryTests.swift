import Foundation
import NavJSON
import NavStateWire
import NavigationCore
import Synchronization
import Testing

@testable import NavStateEngine
@testable import NavStatePersistence

@Suite struct SHA256Tests {
  private func hex(_ bytes: [UInt8]) -> String {
    bytes.map {
      String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
    }
    .joined()
  }

  @Test func knownDigests() {
    // FIPS 180-4 examples, and a message over two blocks.
    #expect(
      hex(SHA256.hash(Array("".utf8)))
        == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(
      hex(SHA256.hash(Array("abc".utf8)))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  }

  @Test func crc32KnownValue() {
    #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
  }

  @Test("CRC-32, eight bytes a step, equals the bit-by-bit definition at every length and offset")
  func crc32MatchesTheDefinition() {
    let bytes = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
    for start in 0..<9 {
      for end in stride(from: start, through: bytes.count, by: 7) {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes[start..<end] {
          crc ^= UInt32(byte)
          for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        #expect(CRC32.checksum(Array(bytes[start..<end])) == crc ^ 0xFFFF_FFFF)
      }
    }
  }
}

/// Sessions written to a data directory come back as they were; damage is refused, never half
/// loaded.
@Suite struct DataDirectoryTests {
  private func makeStore() throws -> SessionStore {
    let graphs = try BuiltInGraphs.load()
    return SessionStore(
      graphs: graphs, defaultGraph: "demo", configuration: StoreConfiguration())
  }

  private func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "navstate-data-\(UUID().uuidString)"
    return path
  }

  /// A few sessions of every kind of tree: a stack with params, a sheet, tabs.
  private func fill(_ store: SessionStore) throws -> [(SessionRecord, String)] {
    var made: [(SessionRecord, String)] = []
    let walks: [(RouteRequest?, [Command])] = [
      (
        nil,
        [
          .push(RouteRequest(route: "detail", params: JSONObject(["id": .int(7)]))),
          .present(RouteRequest(route: "settings"), style: .sheet),
        ]
      ),
      (RouteRequest(route: "tabs"), [.selectTab(.index(2))]),
      (
        RouteRequest(route: "scene1"),
        [.push(RouteRequest(route: "scene2", params: JSONObject(["text": .string("é \"x\"")])))]
      ),
    ]
    for (root, commands) in walks {
      let (record, token) = try store.create(
        graph: "demo", root: root, client: "10.0.0.1", now: .now())
      for command in commands {
        try record.data.withLock { data throws in
          let events = try data.navigation.apply(command)
          data.record(events)
        }
      }
      made.append((record, token))
    }
    return made
  }

  private func state(_ record: SessionRecord) -> [UInt8] {
    record.data.withLock { data in
      record.encodedState(of: &data, viewer: .owner, watchers: ShareWatchers()).bytes
    }
  }

  private func events(_ record: SessionRecord) -> [[UInt8]] {
    record.data.withLock { $0.log.after(0)?.map(\.json) ?? [] }
  }

  @Test func sessionsComeBackAsTheyWere() throws {
    let path = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let store = try makeStore()
    let made = try fill(store)
    let directory = try DataDirectory(path: path)
    #expect(try directory.saveSnapshot(of: store) == made.count)

    let restored = try makeStore()
    #expect(try directory.load(into: restored, journal: nil).sessions == made.count)
    #expect(restored.liveSessions == made.count)
    // (The commands above were applied to the sessions directly, so count their trees here.)
    let coordinators = made.reduce(0) { sum, made in
      sum + made.0.data.withLock { $0.navigation.liveCount }
    }
    #expect(restored.liveCoordinators == coordinators)
    for (record, token) in made {
      let again = try restored.authorize(
        id: record.id, token: token)
      #expect(again.id == record.id)
      #expect(state(again) == state(record))
      #expect(events(again) == events(record))
      #expect(
        again.data.withLock { $0.navigation.lastIssuedID }
          == record.data.withLock {
            $0.navigation.lastIssuedID
          })
      // Only the token's digest was kept, and another token is still refused.
      #expect(throws: EngineRefusal.self) {
        try restored.authorize(
          id: record.id, token: SecureRandom.token()
        )
      }
    }
  }

  @Test func theFilesHoldNoToken() throws {
    let path = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let store = try makeStore()
    let made = try fill(store)
    try DataDirectory(path: path).saveSnapshot(of: store)
    let bytes = try #require(try DataDirectory.readFile(path + "/snapshot"))
    let text = String(decoding: bytes, as: UTF8.self)
    for (_, token) in made { #expect(!text.contains(token)) }
  }

  @Test func everyDamagedByteStopsTheLoadWithItsOffset() throws {
    let path = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let store = try makeStore()
    _ = try fill(store)
    let directory = try DataDirectory(path: path)
    try directory.saveSnapshot(of: store)
    let good = try #require(try DataDirectory.readFile(directory.snapshotPath))
    var random = SystemRandomNumberGenerator()
    for position in Array(stride(from: 0, to: good.count, by: 7)) + [good.count - 1] {
      var damaged = good
      damaged[position] ^= UInt8.random(in: 1...255, using: &random)
      try DataDirectory.replace(directory.snapshotPath, with: damaged, directory: path)
      let fresh = try makeStore()
      do {
        _ = try directory.load(into: fresh, journal: nil)
        Issue.record("a byte changed at \(position) was not noticed")
      } catch {
        #expect(error.description.contains("snapshot: damaged at offset"))
      }
      #expect(fresh.liveSessions == 0, "nothing is half loaded")
    }
    // Cut short anywhere: refused too.
    for length in [0, 5, good.count / 2, good.count - 1] where length > 0 {
      try DataDirectory.replace(
        directory.snapshotPath, with: Array(good.prefix(length)), directory: path)
      #expect(throws: DataDirectory.Failure.self) {
        try directory.load(into: try makeStore(), journal: nil)
      }
    }
  }

  @Test func anEmptyDirectoryHoldsNoSessions() throws {
    let path = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(try DataDirectory(path: path).load(into: try makeStore(), journal: nil).sessions == 0)
  }
}

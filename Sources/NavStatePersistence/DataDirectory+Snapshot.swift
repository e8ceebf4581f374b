import NavJSON
public import NavStateEngine
import NavStateWire
import NavigationCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The snapshot: every live session, written whole and read back whole (see ``DataDirectory``).
extension DataDirectory {
  package var snapshotPath: String { path + "/snapshot" }

  /// Writes every live session; returns how many. With a journal, a new journal generation
  /// starts first, and the older ones, which the snapshot covers, are deleted once it is on disk.
  @discardableResult
  public func saveSnapshot(of store: SessionStore) throws(Failure) -> Int {
    let firstJournal = try journal?.rotate() ?? 0
    var bytes: [UInt8] = []
    try saveGraphs(of: store)
    var header: [UInt8] = [Tag.header.rawValue]
    header += Self.magic
    header.appendVarint(Self.formatVersion)
    header.appendVarint(UInt64(firstJournal))
    Self.appendRecord(header, to: &bytes)
    var count = 0
    store.forEachSession { record in
      let archived = record.data.withLock { data -> [UInt8]? in
        guard !data.ended else { return nil }
        var bytes: [UInt8] = [Tag.session.rawValue]
        bytes.appendVarint(UInt64(data.navigation.graphVersion))
        return bytes + SessionArchive.encode(record, data)
      }
      guard let archived else { return }
      Self.appendRecord(archived, to: &bytes)
      count += 1
    }
    var trailer: [UInt8] = [Tag.trailer.rawValue]
    trailer.appendVarint(UInt64(count))
    Self.appendRecord(trailer, to: &bytes)
    try Self.replace(snapshotPath, with: bytes, directory: path)
    journal?.snapshotWritten(firstJournal: firstJournal)
    try keepFeed(before: firstJournal, store: store)
    for generation in try journalGenerations() where generation < firstJournal {
      unlink(Journal.path(path, generation))
    }
    return count
  }

  /// The sessions of the snapshot, if there is one, and the first journal generation after it.
  func readSnapshot(_ store: SessionStore) throws(Failure) -> (
    sessions: [SessionRecord], firstJournal: Int, exists: Bool
  ) {
    guard let bytes = try Self.readFile(snapshotPath) else { return ([], 0, false) }
    var firstJournal = 0
    var offset = 0
    var sessions: [SessionRecord] = []
    var sawHeader = false
    var expected: Int?
    var snapshotFormat: UInt64 = 1
    while offset < bytes.count {
      let start = offset
      func damaged(_ reason: String) -> Failure {
        Failure(description: "\(snapshotPath): damaged at offset \(start): \(reason)")
      }
      guard bytes.count - offset >= 8 else { throw damaged("a record is cut short") }
      let length = Int(Self.uint32(bytes, at: offset))
      let checksum = Self.uint32(bytes, at: offset + 4)
      offset += 8
      guard length >= 1, length <= bytes.count - offset else {
        throw damaged("a record is cut short")
      }
      let payload = Array(bytes[offset..<offset + length])
      offset += length
      guard CRC32.checksum(payload) == checksum else { throw damaged("checksum mismatch") }
      guard expected == nil else { throw damaged("records after the trailer") }
      switch Tag(rawValue: payload[0]) {
      case .header:
        var reader = ByteReader(payload, at: 1 + Self.magic.count)
        guard !sawHeader, payload.count > Self.magic.count,
          Array(payload[1..<1 + Self.magic.count]) == Self.magic
        else { throw damaged("not a navstate snapshot") }
        guard let format = reader.varint(), format >= 1, format <= Self.formatVersion else {
          throw damaged("a snapshot format this version does not read")
        }
        snapshotFormat = format
        guard let generation = reader.natural() else { throw damaged("no journal generation") }
        firstJournal = generation
        sawHeader = true
      case .session:
        guard sawHeader else { throw damaged("no header") }
        do throws(SessionArchive.Damage) {
          var reader = ByteReader(payload, at: 1)
          var graphVersion = 1
          if snapshotFormat >= 2 {
            guard let version = reader.natural() else {
              throw SessionArchive.Damage(reason: "cannot read its graph version")
            }
            graphVersion = version
          }
          sessions.append(
            try SessionArchive.decode(
              Array(payload[reader.offset...]),
              graph: { store.catalog.graph($0, version: graphVersion) },
              historyGraph: { store.catalog.graph($0, version: $1) },
              configuration: store.configuration))
        } catch {
          throw damaged("session \(sessions.count + 1): \(error.reason)")
        }
      case .trailer:
        var reader = ByteReader(payload, at: 1)
        guard let count = reader.natural(), count == sessions.count else {
          throw damaged("the trailer counts other sessions than the file holds")
        }
        expected = count
      case nil:
        throw damaged("unknown record")
      }
    }
    guard expected != nil else {
      throw Failure(description: "\(snapshotPath): damaged at offset \(offset): no trailer")
    }
    return (sessions, firstJournal, true)
  }

  static func appendRecord(_ payload: [UInt8], to bytes: inout [UInt8]) {
    appendUInt32(UInt32(payload.count), to: &bytes)
    appendUInt32(CRC32.checksum(payload), to: &bytes)
    bytes += payload
  }

  static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
    for shift in stride(from: 0, to: 32, by: 8) {
      bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
    }
  }

  static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(0) { value, index in value | UInt32(bytes[offset + index]) << (8 * index) }
  }

}

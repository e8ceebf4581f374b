import Foundation
import Testing

@testable import NavStatePersistence

/// The journal file written through its map: what is appended is in the file, whole and in
/// order, across the ends of the mapped windows and the room allocated ahead.
@Suite struct JournalFileTests {
  private func temporaryFile() -> String {
    NSTemporaryDirectory() + "navstate-journal-file-\(UUID().uuidString)"
  }

  private func contents(_ path: String) throws -> [UInt8] {
    try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
  }

  @Test(
    "records land in order across window ends; the file ends in zeros until trimmed",
    arguments: [true, false])
  func appendsAcrossWindows(mapping: Bool) throws {
    let path = temporaryFile()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let file = try JournalFile(path: path, generation: 0, mapping: mapping)
    var expected: [UInt8] = []
    // Sizes that do not divide the window, and one record larger than a window.
    for index in 0..<3_000 {
      let record = [UInt8](repeating: UInt8(truncatingIfNeeded: index | 1), count: 700 + index % 97)
      #expect(file.append(record))
      expected += record
    }
    let large = [UInt8](repeating: 0xAB, count: JournalFile.step + 12_345)
    #expect(file.append(large))
    expected += large
    #expect(file.size == expected.count)
    let unfinished = try contents(path)
    #expect(unfinished.count > expected.count, "room allocated ahead")
    #expect(Array(unfinished[..<expected.count]) == expected)
    #expect(unfinished[expected.count...].allSatisfy { $0 == 0 })
    file.trim()
    #expect(try contents(path) == expected)
    // Still usable after a trim.
    #expect(file.append([1, 2, 3]))
    file.trim()
    #expect(try contents(path) == expected + [1, 2, 3])
  }

  @Test("a file reopened appends after what it holds; a cut takes the last records back")
  func reopenAndCut() throws {
    let path = temporaryFile()
    defer { try? FileManager.default.removeItem(atPath: path) }
    do {
      let file = try JournalFile(path: path, generation: 3)
      #expect(file.append([1, 2, 3, 4]))
      file.trim()
    }
    let file = try JournalFile(path: path, generation: 3)
    #expect(file.size == 4)
    #expect(file.append([5, 6]))
    #expect(file.cut(to: 4))
    #expect(file.size == 4)
    #expect(try contents(path) == [1, 2, 3, 4])
    #expect(file.append([7]))
    file.trim()
    #expect(try contents(path) == [1, 2, 3, 4, 7])
  }

  @Test("a file with no room (a device that is always full) refuses a record and holds nothing")
  func noRoom() throws {
    let file = try JournalFile(path: "/dev/full", generation: 0)
    #expect(!file.append([1, 2, 3]))
    #expect(file.size == 0)
  }

  @Test("concurrent appends through the journal, flushed or not, all read back whole")
  func concurrentJournal() throws {
    for policy in [Journal.SyncPolicy.always, .everysec] {
      let directory = temporaryFile()
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let journal = try Journal(directory: directory, generation: 0, policy: policy)
      let group = DispatchGroup()
      for thread in 0..<8 {
        group.enter()
        Thread.detachNewThread {
          defer { group.leave() }
          for index in 0..<200 {
            var record = Journal.Record(.ended)
            record.body { $0 += [UInt8(thread), UInt8(index)] }
            #expect(journal.append(record))
          }
        }
      }
      group.wait()
      journal.finish()
      let bytes = try contents(Journal.path(directory, 0))
      var offset = 0
      var seen: [[UInt8]] = []
      while offset + 8 <= bytes.count {
        let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        let payload = Array(bytes[offset + 8..<offset + 8 + length])
        let checksum = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + 4 + $1]) << (8 * $1) }
        #expect(CRC32.checksum(payload) == checksum)
        #expect(payload.first == Journal.Tag.ended.rawValue)
        seen.append(Array(payload.dropFirst()))
        offset += 8 + length
      }
      #expect(offset == bytes.count, "\(policy): finished, the file ends with its last record")
      #expect(seen.count == 1_600 && Set(seen).count == 1_600, "\(policy)")
    }
  }
}

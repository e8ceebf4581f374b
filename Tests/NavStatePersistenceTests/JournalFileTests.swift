import Foundation
import Synchronization
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
    #expect(file.trim() == (true, true, ""))
    #expect(try contents(path) == expected)
    // Still usable after a trim.
    #expect(file.append([1, 2, 3]))
    #expect(file.trim() == (true, true, ""))
    #expect(try contents(path) == expected + [1, 2, 3])
  }

  @Test("a file reopened appends after what it holds; a cut takes the last records back")
  func reopenAndCut() throws {
    let path = temporaryFile()
    defer { try? FileManager.default.removeItem(atPath: path) }
    do {
      let file = try JournalFile(path: path, generation: 3)
      #expect(file.append([1, 2, 3, 4]))
      #expect(file.trim() == (true, true, ""))
    }
    let file = try JournalFile(path: path, generation: 3)
    #expect(file.size == 4)
    #expect(file.append([5, 6]))
    #expect(file.cut(to: 4))
    #expect(file.size == 4)
    #expect(try contents(path) == [1, 2, 3, 4])
    #expect(file.append([7]))
    #expect(file.trim() == (true, true, ""))
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

/// Which file systems get the map: read from mountinfo by the file's device.
@Suite struct FileSystemTypeTests {
  @Test("a device's type is the field after the separator, optional fields or not")
  func parsesMountinfo() {
    let table = """
      22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
      25 22 0:23 / /dev/shm rw,nosuid,nodev shared:4 master:2 - tmpfs tmpfs rw
      30 22 0:45 / /data rw - btrfs /dev/vdb rw,space_cache=v2
      """
    #expect(FileSystemType.type(ofDevice: "254:1", in: table) == "ext4")
    #expect(FileSystemType.type(ofDevice: "0:23", in: table) == "tmpfs")
    #expect(FileSystemType.type(ofDevice: "0:45", in: table) == "btrfs")
    #expect(FileSystemType.type(ofDevice: "9:9", in: table) == nil)
  }

  @Test(
    "a file on /dev/shm is on tmpfs, by its device",
    .enabled(if: FileManager.default.fileExists(atPath: "/dev/shm"), "no /dev/shm here"))
  func realFiles() throws {
    let shm = open("/dev/shm", O_RDONLY)
    defer { close(shm) }
    try #require(shm >= 0)
    #expect(FileSystemType.of(shm) == "tmpfs")
  }
}

/// A failed flush: Linux may have dropped the pages it could not write, so the changes answered
/// from that file are in memory only, and no change is accepted until a snapshot holds them.
@Suite struct JournalFlushFailureTests {
  private func directory() throws -> String {
    let path = NSTemporaryDirectory() + "navstate-flush-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    return path
  }

  private func record(_ byte: UInt8) -> Journal.Record {
    var record = Journal.Record(.ended)
    record.body { $0.append(byte) }
    return record
  }

  private func contents(_ path: String) throws -> [UInt8] {
    try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
  }

  @Test("always: the group whose flush failed is refused and cut off; changes wait for a snapshot")
  func alwaysRefusesUntilSnapshot() throws {
    let path = try directory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let failing = Atomic<Bool>(false)
    let journal = try Journal(
      directory: path, generation: 0, policy: .always,
      flush: { !failing.load(ordering: .relaxed) && fdatasync($0) == 0 })
    #expect(journal.append(record(1)))
    failing.store(true, ordering: .relaxed)
    #expect(!journal.append(record(2)))
    failing.store(false, ordering: .relaxed)
    #expect(!journal.append(record(3)), "refused though flushes work again: no snapshot yet")
    let next = try journal.rotate()
    #expect(next == 1)
    #expect(!journal.append(record(4)), "a rotation alone does not cover the lost pages")
    journal.snapshotWritten(firstJournal: next)
    #expect(journal.append(record(5)))
    journal.finish()
    // The refused record was cut off: journal.0 holds record 1 only.
    let first = try contents(Journal.path(path, 0))
    #expect(first.count == 10 && first[9] == 1)
    #expect(try contents(Journal.path(path, 1)).last == 5)
  }

  @Test("everysec: a failed flush of the current file, or of one rotated away, refuses changes")
  func everysecRefusesUntilSnapshot() throws {
    let path = try directory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let failing = Atomic<Bool>(false)
    let journal = try Journal(
      directory: path, generation: 0, policy: .everysec,
      flush: { !failing.load(ordering: .relaxed) && fdatasync($0) == 0 })
    #expect(journal.append(record(1)))
    failing.store(true, ordering: .relaxed)
    journal.syncIfWritten()
    failing.store(false, ordering: .relaxed)
    #expect(!journal.append(record(2)))
    journal.snapshotWritten(firstJournal: try journal.rotate())
    #expect(journal.append(record(3)))
    // The rotation's own flush of the old file fails: refused until the snapshot is written.
    failing.store(true, ordering: .relaxed)
    let next = try journal.rotate()
    failing.store(false, ordering: .relaxed)
    #expect(!journal.append(record(4)))
    journal.snapshotWritten(firstJournal: next)
    #expect(journal.append(record(5)))
    #expect(journal.finish() == nil)
    #expect(throws: DataDirectory.Failure.self) { try journal.rotate() }
    #expect(!journal.append(record(6)), "finished")
  }

  /// Runs `action` inside a flush, as a snapshot's rotation does while `everysec`'s flush of the
  /// file it rotates away is under way; then the flush fails.
  private final class LateFailure: @unchecked Sendable {
    var action: (() -> Void)?
  }

  @Test("a late flush failure of a file a snapshot already covers refuses nothing; else it does")
  func lateFailureOfARotatedFile() throws {
    for covered in [true, false] {
      let path = try directory()
      defer { try? FileManager.default.removeItem(atPath: path) }
      let late = LateFailure()
      let journal = try Journal(
        directory: path, generation: 0, policy: .everysec,
        flush: { descriptor in
          guard let action = late.action else { return fdatasync(descriptor) == 0 }
          late.action = nil
          action()
          return false
        })
      #expect(journal.append(record(1)))
      late.action = {
        guard let next = try? journal.rotate() else { return }
        if covered { journal.snapshotWritten(firstJournal: next) }
      }
      journal.syncIfWritten()
      #expect(journal.append(record(2)) == covered, "covered by a snapshot: \(covered)")
      #expect(journal.needsSnapshot == !covered)
    }
  }
}

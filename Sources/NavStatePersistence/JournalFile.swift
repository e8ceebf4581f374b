import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One journal file, appended to through a shared memory map of its end, so that a record costs
/// a copy, not a system call.
///
/// What is copied into the map is in the system's page cache at once, as after a `write(2)`: a
/// crash of the process loses none of it, and a flush (`fdatasync`) makes it durable. Room is
/// allocated ahead (`posix_fallocate`, a megabyte at a time, or just what a record needs when the
/// disk is nearly full) before anything is copied, so a full disk refuses a record whole instead
/// of cutting it short, and nothing past the room allocated is ever touched (the map may reach
/// further, untouched). The file holds whole records and then zeros; ``trim()`` cuts the zeros
/// off when the file is done with, and a start-up after a crash cuts them off the last file
/// (``DataDirectory/load(into:journal:)``).
///
/// The map is used only on file systems that write an allocated block in place (ext2/3/4, XFS,
/// tmpfs). On a copy-on-write one (btrfs, ZFS) a write into allocated room may still need room
/// of its own, which a map can only report by killing the process (SIGBUS); there, and wherever
/// the system refuses a map, records are written with `pwrite`, which reports a full disk.
///
/// Not thread-safe: ``Journal`` holds it under its lock. Only `descriptor` may be used outside
/// (to flush), and stays open as long as the object lives.
final class JournalFile: @unchecked Sendable {
  let descriptor: Int32
  let generation: Int
  /// Bytes of whole records, from the start of the file.
  private(set) var size: Int
  /// The file's length: the records and the zeroed room after them.
  private var allocated: Int
  /// The mapped part of the file, from `windowStart` (a page boundary).
  private var window: UnsafeMutableRawPointer?
  private var windowStart = 0
  private var windowLength = 0
  /// False once the system refused to map the file (or when asked, for tests).
  private var mappable: Bool
  /// Part of a record that could not be written whole is in the file, and could not be cut off.
  private(set) var damaged = false

  /// How far ahead room is allocated, and how much of the file is mapped at a time.
  static let step = 1 << 20
  private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

  /// Opens (or makes) the file, to append after what it holds; with `mapping` false, writes with
  /// `pwrite` as where the system refuses to map it.
  init(path: String, generation: Int, mapping: Bool = true) throws(DataDirectory.Failure) {
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw DataDirectory.Failure(
        description: "cannot open \(path): \(String(cString: strerror(errno)))")
    }
    self.descriptor = descriptor
    self.generation = generation
    mappable = mapping && Self.writesInPlace(descriptor)
    size = Int(lseek(descriptor, 0, SEEK_END))
    allocated = size
  }

  private static func writesInPlace(_ descriptor: Int32) -> Bool {
    ["ext2", "ext3", "ext4", "xfs", "tmpfs"].contains(FileSystemType.of(descriptor) ?? "")
  }

  deinit {
    unmap()
    close(descriptor)
  }

  /// Appends `bytes` whole; false when there is no room for them (a full disk) or they could
  /// not be written, and nothing was.
  func append(_ bytes: [UInt8]) -> Bool {
    let end = size + bytes.count
    guard reserve(through: end) else { return false }
    if mappable, map(through: end), let window {
      bytes.withUnsafeBytes { source in
        (window + (size - windowStart)).copyMemory(
          from: source.baseAddress!, byteCount: source.count)
      }
    } else {
      guard writeAt(size, bytes) else {
        // Part of the record may be in the file: cut off, so zeros follow the last record.
        _ = cut(to: size)
        return false
      }
    }
    size = end
    return true
  }

  /// Where a shared writable map is refused (some network and FUSE file systems), records are
  /// written with `pwrite` instead, into the same room allocated ahead.
  private func writeAt(_ offset: Int, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { buffer in
      var written = 0
      while written < buffer.count {
        let count = pwrite(
          descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset + written)
        )
        if count < 0 {
          if errno == EINTR { continue }
          return false
        }
        written += count
      }
      return true
    }
  }

  /// Cuts the file back to `length` bytes of records (after a flush that failed, what was copied
  /// must not come back; after a partial `pwrite`, what was written must go). False, and
  /// `damaged`, if the file could not be cut: the next ``trim()`` tries again at the same place.
  func cut(to length: Int) -> Bool {
    unmap()
    size = length
    guard ftruncate(descriptor, off_t(length)) == 0 else {
      damaged = true
      return false
    }
    allocated = length
    damaged = false
    return true
  }

  /// Cuts the zeroed room off and flushes, for a file that is done with (it stays usable).
  /// `cut` is false if the room could not be cut off (the file would then end in zeros, which
  /// only the last file may), and `error` says why; `flushed` is false if the flush failed.
  func trim(flush: (Int32) -> Bool = { fdatasync($0) == 0 })
    -> (cut: Bool, flushed: Bool, error: String)
  {
    unmap()
    // Whatever `allocated` says: a partial allocation on a full disk may have grown the file.
    guard ftruncate(descriptor, off_t(size)) == 0 else {
      let error = String(cString: strerror(errno))
      return (false, flush(descriptor), error)
    }
    allocated = size
    damaged = false
    return (true, flush(descriptor), "")
  }

  private func reserve(through end: Int) -> Bool {
    guard end > allocated else { return true }
    let stepped = (end + Self.step - 1) / Self.step * Self.step
    // A megabyte at a time, so that the file's length changes rarely; when the disk has less
    // room than that, just what the record needs.
    for target in [stepped, end]
    where posix_fallocate(descriptor, off_t(allocated), off_t(target - allocated)) == 0 {
      allocated = target
      return true
    }
    // An allocation that failed part way (ext4 keeps what it got) is given back.
    _ = ftruncate(descriptor, off_t(allocated))
    return false
  }

  private func map(through end: Int) -> Bool {
    if window != nil, end <= windowStart + windowLength { return true }
    unmap()
    let start = size / Self.pageSize * Self.pageSize
    let length = max(Self.step, (end - start + Self.pageSize - 1) / Self.pageSize * Self.pageSize)
    let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, off_t(start))
    guard let mapped, Int(bitPattern: mapped) != -1 else {
      mappable = false
      return false
    }
    (window, windowStart, windowLength) = (mapped, start, length)
    return true
  }

  private func unmap() {
    guard let window else { return }
    munmap(window, windowLength)
    self.window = nil
  }
}

import NavJSON
import NavStateEngine
import NavStateWire
import NavigationCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Where sessions outlive the process (`--data-dir`): a snapshot of every live session, written
/// on a graceful stop and every `--snapshot-interval` seconds, and the journal of every change
/// since (``Journal``), both read back at start-up.
///
/// The snapshot is records, each its length and CRC-32 (little-endian, 4 bytes each) and then
/// its bytes: a header, one record per session (``SessionArchive``), and a trailer with the
/// count. It is written to `snapshot.tmp`, flushed to disk, and renamed over `snapshot`, so a
/// crash while writing leaves the previous one whole. Any damage stops start-up with the file
/// and offset: sessions are never half loaded.
public final class DataDirectory: Sendable {
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  public let path: String
  /// The journal opened by ``load(into:journal:)``, which the snapshots rotate.
  let journalSlot = Mutex<Journal?>(nil)

  /// The journal new changes go to; nil before loading, or when loaded without one.
  public var journal: Journal? { journalSlot.withLock { $0 } }
  static let magic = Array("navstate snapshot".utf8)
  /// 2: each session record starts with its graph's version (1 read as all at version 1).
  static let formatVersion: UInt64 = 2
  enum Tag: UInt8 {
    case header = 1
    case session = 2
    case trailer = 3
  }

  /// Opens the directory, making it if it does not exist.
  public init(path: String) throws(Failure) {
    self.path = path
    if mkdir(path, 0o700) != 0 && errno != EEXIST {
      throw Failure(description: "cannot make the data directory \(path): \(Self.systemError())")
    }
    var status = stat()
    guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
      throw Failure(description: "\(path) is not a directory")
    }
    guard access(path, W_OK) == 0 else {
      throw Failure(description: "cannot write in the data directory \(path)")
    }
    (directoryDescriptor, lockDescriptor) = try Self.takeOwnership(of: path)
  }

  /// The directory itself and `DIR/lock`, both locked (flock) for as long as this process
  /// lives: a second server on the same directory would overwrite the first one's snapshot and
  /// delete its journal. The kernel drops the locks when the process ends, however it ends, so a
  /// crash leaves nothing to clean up. The directory's lock is the one that counts: a file can
  /// be deleted and made anew under a running server (and a new one locked), the directory it
  /// is in cannot while it holds the journal. `DIR/lock` names the owner's process.
  private let directoryDescriptor: Int32
  private let lockDescriptor: Int32

  deinit {
    close(lockDescriptor)
    close(directoryDescriptor)
  }

  private static func takeOwnership(of path: String) throws(Failure) -> (Int32, Int32) {
    let directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directory >= 0 else {
      throw Failure(description: "cannot open the data directory \(path): \(systemError())")
    }
    if flock(directory, LOCK_EX | LOCK_NB) != 0 {
      let busy = errno == EWOULDBLOCK
      let reason = systemError()
      close(directory)
      guard busy else { throw Failure(description: "cannot lock \(path): \(reason)") }
      throw inUse(path)
    }
    do throws(Failure) {
      return (directory, try lockFile(of: path))
    } catch {
      close(directory)
      throw error
    }
  }

  static func inUse(_ path: String) -> Failure {
    let owner = (try? readFile(path + "/lock")).flatMap { $0 }.map {
      String(decoding: $0, as: UTF8.self)
    }
    let process =
      owner.flatMap { Int($0.split(separator: "\n").first ?? "") }.map { " (process \($0))" }
      ?? ""
    return Failure(
      description:
        "the data directory \(path) is in use by another navstate\(process), which holds the lock on the directory and on \(path)/lock; give this server a directory of its own"
    )
  }

  private static func lockFile(of path: String) throws(Failure) -> Int32 {
    let lockPath = path + "/lock"
    let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw Failure(description: "cannot open \(lockPath): \(systemError())")
    }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      let busy = errno == EWOULDBLOCK
      let reason = systemError()
      close(descriptor)
      guard busy else { throw Failure(description: "cannot lock \(lockPath): \(reason)") }
      throw inUse(path)
    }
    let pid = Array("\(getpid())\n".utf8)
    _ = ftruncate(descriptor, 0)
    _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    return descriptor
  }

}

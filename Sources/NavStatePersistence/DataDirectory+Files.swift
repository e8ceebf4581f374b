#if canImport(Glibc)
  import Glibc
  private let systemRead = Glibc.read
#elseif canImport(Musl)
  import Musl
  private let systemRead = Musl.read
#endif

/// Files whole: read, replaced atomically, flushed with their directory entries.
extension DataDirectory {
  static func systemError() -> String { String(cString: strerror(errno)) }

  /// The whole file, or nil if there is none.
  package static func readFile(_ path: String) throws(Failure) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    if descriptor < 0 {
      var link = stat()
      // Missing is fine (a directory that never had one); a link to nothing is damage.
      if errno == ENOENT, lstat(path, &link) != 0 { return nil }
      throw Failure(description: "cannot open \(path): \(systemError())")
    }
    defer { close(descriptor) }
    var status = stat()
    // A device or a pipe in its place could be read forever (/dev/zero never ends).
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      throw Failure(description: "\(path) is not a regular file")
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure(description: "cannot read \(path): \(systemError())")
      }
      if count == 0 { return bytes }
      bytes += chunk[0..<count]
    }
  }

  /// Writes `bytes` to `path` whole or not at all: a temporary file, flushed, renamed over it.
  package static func replace(_ path: String, with bytes: [UInt8], directory: String)
    throws(Failure)
  {
    let temporary = path + ".tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw Failure(description: "cannot write \(temporary): \(systemError())")
    }
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes {
        write(descriptor, $0.baseAddress! + written, $0.count - written)
      }
      if count < 0 {
        if errno == EINTR { continue }
        let message = systemError()
        close(descriptor)
        // A partial file would only take the space a retry needs (a full disk).
        unlink(temporary)
        throw Failure(description: "cannot write \(temporary): \(message)")
      }
      written += count
    }
    guard fsync(descriptor) == 0 else {
      let message = systemError()
      close(descriptor)
      unlink(temporary)
      throw Failure(description: "cannot flush \(temporary): \(message)")
    }
    close(descriptor)
    guard rename(temporary, path) == 0 else {
      throw Failure(description: "cannot rename \(temporary) to \(path): \(systemError())")
    }
    // The rename itself is on disk once the directory is.
    try syncDirectory(directory)
  }

  /// Flushes `directory`'s entries (a file made, renamed or deleted in it).
  package static func syncDirectory(_ directory: String) throws(Failure) {
    let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0, fsync(descriptor) == 0 else {
      let reason = systemError()
      if descriptor >= 0 { close(descriptor) }
      throw Failure(description: "cannot flush the directory \(directory): \(reason)")
    }
    close(descriptor)
  }

  /// The names of the directory's entries that start with `prefix`.
  func fileNames(prefix: String) throws(Failure) -> [String] {
    guard let directory = opendir(path) else {
      throw Failure(description: "cannot list \(path): \(Self.systemError())")
    }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
      }
      if name.hasPrefix(prefix) { names.append(name) }
    }
    return names
  }
}

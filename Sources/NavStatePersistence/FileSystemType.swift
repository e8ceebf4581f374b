import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The type of the file system an open file lives on (`ext4`, `xfs`, `tmpfs`...), as
/// `/proc/self/mountinfo` names it for the file's device; nil if it cannot be told.
/// (`fstatfs` would give it directly, but Swift's Glibc module does not export it.)
enum FileSystemType {
  static func of(_ descriptor: Int32) -> String? {
    var status = stat()
    guard fstat(descriptor, &status) == 0,
      let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
    else { return nil }
    let device = UInt64(status.st_dev)
    let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
    let minor = (device & 0xFF) | ((device >> 12) & 0xFFFF_FF00)
    return type(ofDevice: "\(major):\(minor)", in: table)
  }

  /// The type named for `device` ("major:minor", the third field) in a mountinfo `table`: the
  /// first field after the " - " separator.
  static func type(ofDevice device: String, in table: String) -> String? {
    for line in table.split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard fields.count > 2, fields[2] == device,
        let separator = fields.firstIndex(of: "-"), separator + 1 < fields.count
      else { continue }
      return String(fields[separator + 1])
    }
    return nil
  }
}

/// CRC-32 (IEEE 802.3, as zlib computes it), over each journal and snapshot record, so that a
/// record cut short or damaged on disk is found on loading.
///
/// Eight bytes a step ("slicing by 8", as zlib does): a journal record is checksummed on the
/// request path, and a byte at a time cost about four instructions a byte.
package enum CRC32 {
  /// `tables[k][b]`: the CRC of byte `b` followed by `k` zero bytes.
  private static let tables: [UInt32] = {
    var tables = [UInt32](repeating: 0, count: 8 * 256)
    for index in 0..<256 {
      var value = UInt32(index)
      for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
      tables[index] = value
    }
    for index in 0..<256 {
      for slice in 1..<8 {
        let previous = tables[(slice - 1) * 256 + index]
        tables[slice * 256 + index] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
      }
    }
    return tables
  }()

  package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    tables.withUnsafeBufferPointer { table in
      var crc: UInt32 = 0xFFFF_FFFF
      var offset = 0
      while offset + 8 <= bytes.count {
        let low =
          crc ^ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        let high = UInt32(
          littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        crc =
          table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
          ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
          ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
          ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
        offset += 8
      }
      while offset < bytes.count {
        crc = table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
        offset += 1
      }
      return crc ^ 0xFFFF_FFFF
    }
  }

  package static func checksum(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBytes { checksum($0) }
  }
}

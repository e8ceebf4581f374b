import CLibPQ

/// A statement's rows, copied out of libpq's result (binary format): each value as its bytes,
/// nil for NULL.
public struct PostgresRows: Sendable {
  public private(set) var values: [[[UInt8]?]] = []
  /// Rows a command touched (`UPDATE`, `INSERT`, `DELETE`), 0 for others.
  public private(set) var affected = 0

  public var count: Int { values.count }

  init(_ result: OpaquePointer) {
    let rows = Int(PQntuples(result))
    let columns = Int(PQnfields(result))
    values.reserveCapacity(rows)
    for row in 0..<rows {
      var line: [[UInt8]?] = []
      line.reserveCapacity(columns)
      for column in 0..<columns {
        if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
          line.append(nil)
          continue
        }
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        let start = PQgetvalue(result, Int32(row), Int32(column))
        line.append(
          start.map { pointer in
            pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
              Array(UnsafeBufferPointer(start: $0, count: length))
            }
          } ?? [])
      }
      values.append(line)
    }
    affected = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
  }

  public func bytes(_ row: Int, _ column: Int) -> [UInt8]? { values[row][column] }

  public func text(_ row: Int, _ column: Int) -> String? {
    values[row][column].map { String(decoding: $0, as: UTF8.self) }
  }

  /// An `int2`, `int4` or `int8` column.
  public func integer(_ row: Int, _ column: Int) -> Int64? {
    guard let bytes = values[row][column], [2, 4, 8].contains(bytes.count) else { return nil }
    var value: Int64 = bytes[0] & 0x80 != 0 ? -1 : 0
    for byte in bytes { value = value << 8 | Int64(byte) }
    return value
  }

  public func bool(_ row: Int, _ column: Int) -> Bool? {
    values[row][column].map { $0.first == 1 }
  }
}

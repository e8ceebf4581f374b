import NavJSON

/// Server-Sent Events framing (WHATWG HTML, "server-sent events").
enum EventStreamFraming {
  /// Sent first: how long a browser waits before it reconnects.
  static func retry(milliseconds: Int) -> [UInt8] { Array("retry: \(milliseconds)\n\n".utf8) }

  /// A comment line: keeps proxies from closing the connection and lets the server find dead
  /// clients, since a write to a gone client fails.
  static let heartbeat: [UInt8] = Array(": heartbeat\n\n".utf8)

  /// `id`, `event`, then the JSON as one `data` line (the writer never emits a newline).
  static func event(id: Int, type: StaticString, json: [UInt8]) -> [UInt8] {
    var frame: [UInt8] = []
    frame.reserveCapacity(json.count + type.utf8CodeUnitCount + 48)
    frame += "id: ".utf8
    JSONWriter.appendDigits(of: id, to: &frame)
    frame += "\nevent: ".utf8
    frame += UnsafeBufferPointer(start: type.utf8Start, count: type.utf8CodeUnitCount)
    frame += "\ndata: ".utf8
    frame += json
    frame += "\n\n".utf8
    return frame
  }
}

import NavJSON

/// Server-Sent Events framing (WHATWG HTML, "server-sent events").
package enum EventStreamFraming {
  /// How long a browser waits before it reconnects: a field of the stream's first event block
  /// (a block of `retry:` alone is dispatched by no client, and dropped whole by some).
  package static let retryField: [UInt8] = Array("retry: 2000\n".utf8)

  /// A comment line: keeps proxies from closing the connection and lets the server find dead
  /// clients, since a write to a gone client fails.
  package static let heartbeat: [UInt8] = Array(": heartbeat\n\n".utf8)

  /// `id`, `event`, then the JSON as one `data` line (the writer never emits a newline).
  package static func event(id: Int, type: StaticString, json: [UInt8]) -> [UInt8] {
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

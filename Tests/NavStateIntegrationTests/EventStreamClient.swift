import Foundation
import NavStateTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// One Server-Sent Event as a client sees it.
struct ReceivedEvent: Sendable {
  var id: Int?
  /// The `id:` field as it was sent (a feed's cursor is not a number).
  var cursor: String? = nil
  var type: String
  var data: String
  /// The `retry:` field of the event's block, if it had one.
  var retry: Int? = nil
}

/// Follows `GET .../events` over a raw socket, decoding the chunked body and the SSE frames.
final class EventStreamClient {
  private let socket: Int32
  private var raw: [UInt8] = []
  private var headDone = false
  private var text: [UInt8] = []
  private(set) var status = 0
  private(set) var ended = false
  private(set) var comments = 0
  /// Blocks that held a `retry:` field and no event (some clients drop such a block whole).
  private(set) var loneRetryBlocks = 0
  /// `event: presence` messages (who watches; docs/shares.md) are returned only when asked
  /// for: most tests follow a session's own events, and presence comes whenever a stream opens
  /// or closes. A skipped one's `retry:` goes with the next event returned.
  private let includesPresence: Bool
  private(set) var skippedPresence = 0
  private var carriedRetry: Int?

  init(
    port: UInt16, path: String, token: String, lastEventID: Int? = nil,
    lastEventCursor: String? = nil, includesPresence: Bool = false
  ) throws {
    self.includesPresence = includesPresence
    socket = try HTTPTestClient(port: port).connectSocket(timeout: 0.2)
    var head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
    head += "Authorization: Bearer \(token)\r\n"
    if let lastEventID { head += "Last-Event-ID: \(lastEventID)\r\n" }
    if let lastEventCursor { head += "Last-Event-ID: \(lastEventCursor)\r\n" }
    head += "\r\n"
    let bytes = Array(head.utf8)
    _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  }

  deinit { close(socket) }

  func disconnect() { shutdown(socket, Int32(SHUT_RDWR)) }

  /// The next event, waiting at most `timeout` seconds; nil on timeout or end of stream.
  func next(timeout: Double = 5) -> ReceivedEvent? {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if let event = takeEvent() { return event }
      if ended || Date() > deadline { return nil }
      receive()
    }
  }

  /// Every event until the stream ends or `timeout` passes.
  func collect(timeout: Double = 5) -> [ReceivedEvent] {
    var events: [ReceivedEvent] = []
    let deadline = Date().addingTimeInterval(timeout)
    while let event = next(timeout: max(0, deadline.timeIntervalSinceNow)) { events.append(event) }
    return events
  }

  private func receive() {
    var buffer = [UInt8](repeating: 0, count: 16384)
    let count = recv(socket, &buffer, buffer.count, 0)
    if count == 0 { ended = true }
    guard count > 0 else { return }
    raw += buffer[0..<count]
    decode()
  }

  private func decode() {
    if !headDone {
      guard let end = raw.firstRange(of: [13, 10, 13, 10]) else { return }
      let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self)
      status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
      raw.removeSubrange(..<end.upperBound)
      headDone = true
    }
    // Chunked transfer coding: "<hex size>\r\n<data>\r\n", ending with a zero-size chunk.
    while let lineEnd = raw.firstRange(of: [13, 10]) {
      let sizeText = String(decoding: raw[..<lineEnd.lowerBound], as: UTF8.self)
      guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { return }
      if size == 0 {
        ended = true
        return
      }
      let start = lineEnd.upperBound
      guard raw.count >= start + size + 2 else { return }
      text += raw[start..<start + size]
      raw.removeSubrange(..<(start + size + 2))
    }
  }

  private func takeEvent() -> ReceivedEvent? {
    while let end = text.firstRange(of: [10, 10]) {
      let frame = String(decoding: text[..<end.lowerBound], as: UTF8.self)
      text.removeSubrange(..<end.upperBound)
      var event = ReceivedEvent(id: nil, type: "message", data: "")
      var isEvent = false
      for line in frame.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix(":") {
          comments += 1
        } else if line.hasPrefix("retry: ") {
          event.retry = Int(line.dropFirst(7))
        } else if line.hasPrefix("id: ") {
          event.id = Int(line.dropFirst(4))
          event.cursor = String(line.dropFirst(4))
          isEvent = true
        } else if line.hasPrefix("event: ") {
          event.type = String(line.dropFirst(7))
          isEvent = true
        } else if line.hasPrefix("data: ") {
          event.data = String(line.dropFirst(6))
          isEvent = true
        }
      }
      if isEvent, event.type == "presence", !includesPresence {
        skippedPresence += 1
        carriedRetry = carriedRetry ?? event.retry
        continue
      }
      if isEvent {
        if event.retry == nil, let retry = carriedRetry { event.retry = retry }
        carriedRetry = nil
        return event
      }
      if event.retry != nil { loneRetryBlocks += 1 }
    }
    return nil
  }
}

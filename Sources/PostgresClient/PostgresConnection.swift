import CLibPQ

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One connection to PostgreSQL through libpq, every call bounded by a deadline: a server that
/// is stopped (SIGSTOP) or cut off accepts bytes and answers nothing, and a blocking libpq call
/// would then wait for TCP to give up (hours). Queries are sent with `PQsendQueryParams` and
/// their answers awaited with `poll` on the connection's socket, parameters and rows in
/// PostgreSQL's binary format (no text escaping of bytes).
///
/// Used by one caller at a time, never concurrently: a pool hands it to one thread for a call
/// and takes it back (hence `@unchecked Sendable`: it moves between threads, it is not shared).
/// A connection whose call failed for any reason but the server's own refusal of a statement is
/// broken for good: its owner makes a new one.
public final class PostgresConnection: @unchecked Sendable {
  private let connection: OpaquePointer
  /// False after a timeout or a lost connection: a query may be half sent or half answered.
  public private(set) var isUsable = true

  /// Connects to `url` (`postgres://user[:password]@host[:port]/database`, or `host=… port=…`
  /// keywords), giving each host `timeout` seconds (libpq's `connect_timeout`: whole seconds, at
  /// least 2). libpq's blocking connect is used because it keeps that timeout per host: a URL
  /// of several hosts whose first one accepts TCP and never answers (stopped, cut off) moves on
  /// to the next; `PQconnectPoll` ignores `connect_timeout`, so one deadline would be spent on
  /// the first host.
  public init(_ url: String, timeout: Double) throws(PostgresError) {
    let keywords = ["dbname", "connect_timeout", "application_name"]
    let values = [url, String(max(2, Int(timeout.rounded(.up)))), "navstate"]
    let made = Self.withCStrings(keywords) { keywordPointers in
      Self.withCStrings(values) { valuePointers in
        PQconnectdbParams(keywordPointers, valuePointers, 1)
      }
    }
    guard let made else { throw PostgresError(.unreachable, "libpq could not allocate") }
    // From here on a throw runs deinit, which finishes the connection.
    connection = made
    guard PQstatus(connection) == CONNECTION_OK else {
      throw PostgresError(.unreachable, Self.message(of: connection))
    }
    guard PQsetnonblocking(connection, 1) == 0 else {
      let message = Self.message(of: connection)
      throw PostgresError(.unreachable, message)
    }
  }

  deinit { PQfinish(connection) }

  /// Statements prepared on this connection, their text and the name each was given. A list,
  /// not a dictionary: there are a handful, their texts are string literals (equal at once by
  /// their storage), and hashing a long statement's text cost every commit about 10,000
  /// instructions (callgrind).
  private var prepared: [(sql: String, name: String)] = []

  /// Runs one statement with `parameters` ($1, $2, …) and returns its rows; within `timeout`
  /// seconds or not at all (the connection is then unusable, and the statement may or may not
  /// have been committed: its owner must treat it as in doubt). With `prepare`, the statement
  /// is parsed and planned once per connection and only executed after that (for the ones run
  /// hundreds of times a second: the commit, the lease renewal). `sent` is called once the
  /// statement is on its way, before its answer is awaited: work to do meanwhile.
  public func query(
    _ sql: String, _ parameters: [PostgresParameter] = [], timeout: Double,
    prepare: Bool = false, sent: (() -> Void)? = nil
  ) throws(PostgresError) -> PostgresRows {
    guard isUsable else { throw PostgresError(.unreachable, "the connection was lost") }
    let deadline = Self.now() + timeout
    let encoded = parameters.map(\.encoded)
    let types = parameters.map(\.type)
    let lengths = encoded.map { Int32($0?.count ?? 0) }
    let formats = [Int32](repeating: 1, count: parameters.count)
    var name = prepare ? prepared.first(where: { $0.sql == sql })?.name : nil
    if prepare, name == nil {
      let chosen = "navstate_\(prepared.count + 1)"
      guard PQsendPrepare(connection, chosen, sql, Int32(parameters.count), types) == 1 else {
        throw broken(.unreachable, Self.message(of: connection))
      }
      _ = try awaitResult(until: deadline, timeout: timeout)
      prepared.append((sql, chosen))
      name = chosen
    }
    let accepted = Self.withBuffers(encoded) { values in
      if let name {
        PQsendQueryPrepared(
          connection, name, Int32(parameters.count), values, lengths, formats, 1)
      } else {
        PQsendQueryParams(
          connection, sql, Int32(parameters.count), types, values, lengths, formats, 1)
      }
    }
    guard accepted == 1 else { throw broken(.unreachable, Self.message(of: connection)) }
    return try awaitResult(until: deadline, timeout: timeout, sent: sent)
  }

  /// Runs statements separated by semicolons, with no parameters (a schema's script, in one
  /// transaction if it says BEGIN and COMMIT); returns the last statement's rows.
  @discardableResult
  public func execute(_ script: String, timeout: Double) throws(PostgresError) -> PostgresRows {
    guard isUsable else { throw PostgresError(.unreachable, "the connection was lost") }
    let deadline = Self.now() + timeout
    guard PQsendQuery(connection, script) == 1 else {
      throw broken(.unreachable, Self.message(of: connection))
    }
    return try awaitResult(until: deadline, timeout: timeout)
  }

  private func awaitResult(
    until deadline: Double, timeout: Double, sent: (() -> Void)? = nil
  ) throws(PostgresError) -> PostgresRows {
    while true {
      let flushed = PQflush(connection)
      if flushed == 0 { break }
      guard flushed == 1 else { throw broken(.unreachable, Self.message(of: connection)) }
      guard Self.wait(for: Int16(POLLOUT | POLLIN), on: PQsocket(connection), until: deadline)
      else { throw broken(.timeout, "no answer from PostgreSQL within \(timeout) s") }
      guard PQconsumeInput(connection) == 1 else {
        throw broken(.unreachable, Self.message(of: connection))
      }
    }
    sent?()
    var rows: PostgresRows?
    var failure: PostgresError?
    while true {
      while PQisBusy(connection) == 1 {
        guard Self.wait(for: Int16(POLLIN), on: PQsocket(connection), until: deadline) else {
          throw broken(.timeout, "no answer from PostgreSQL within \(timeout) s")
        }
        guard PQconsumeInput(connection) == 1 else {
          throw broken(.unreachable, Self.message(of: connection))
        }
      }
      guard let result = PQgetResult(connection) else { break }
      defer { PQclear(result) }
      switch PQresultStatus(result) {
      case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
        rows = PostgresRows(result)
      default:
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let text = trimmed(
          PQresultErrorMessage(result).map { String(cString: $0) } ?? "query failed")
        // A refusal of the server's own (a SQLSTATE outside class 08) leaves the connection
        // usable and the statement surely not committed. One libpq made up (no SQLSTATE) or a
        // connection exception means the connection is gone and the outcome unknown.
        if let state, !state.hasPrefix("08") {
          failure = PostgresError(.server(state), text)
        } else {
          failure = broken(.unreachable, text)
        }
      }
    }
    if PQstatus(connection) == CONNECTION_BAD {
      throw broken(.unreachable, Self.message(of: connection))
    }
    if let failure { throw failure }
    guard let rows else { throw broken(.unreachable, "no result") }
    return rows
  }

  private func broken(_ kind: PostgresError.Kind, _ message: String) -> PostgresError {
    isUsable = false
    return PostgresError(kind, message)
  }

  private static func message(of connection: OpaquePointer) -> String {
    PQerrorMessage(connection).map { trimmed(String(cString: $0)) } ?? "unknown libpq error"
  }

  /// Seconds on the monotonic clock.
  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// Waits until `socket` is ready for `events` or `deadline` passes; false on the deadline.
  private static func wait(for events: Int16, on socket: Int32, until deadline: Double) -> Bool {
    guard socket >= 0 else { return false }
    while true {
      let remaining = deadline - now()
      guard remaining > 0 else { return false }
      var descriptor = pollfd(fd: socket, events: events, revents: 0)
      let ready = poll(&descriptor, 1, Int32(min(remaining * 1000, 60_000).rounded(.up)))
      if ready > 0 { return true }
      if ready < 0, errno != EINTR { return false }
    }
  }

  private static func withCStrings<R>(
    _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R
  ) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    let pointers = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
  }

  private static func withBuffers<R>(
    _ buffers: [[UInt8]?], _ body: ([UnsafePointer<CChar>?]) -> R
  ) -> R {
    // Copied into one allocation so the pointers stay valid for the call.
    let total = buffers.reduce(0) { $0 + ($1?.count ?? 0) }
    let storage = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, total))
    defer { storage.deallocate() }
    var pointers: [UnsafePointer<CChar>?] = []
    var offset = 0
    for buffer in buffers {
      guard let buffer else {
        pointers.append(nil)
        continue
      }
      buffer.withUnsafeBytes { bytes in
        if let base = bytes.baseAddress {
          (storage + offset).withMemoryRebound(to: UInt8.self, capacity: bytes.count) {
            $0.update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
          }
        }
      }
      pointers.append(UnsafePointer(storage + offset))
      offset += buffer.count
    }
    return body(pointers)
  }
}

/// `text` without the line breaks and spaces libpq puts around its messages.
private func trimmed(_ text: String) -> String {
  var characters = Substring(text)
  while let last = characters.last, last.isWhitespace { characters.removeLast() }
  while let first = characters.first, first.isWhitespace { characters.removeFirst() }
  return String(characters)
}

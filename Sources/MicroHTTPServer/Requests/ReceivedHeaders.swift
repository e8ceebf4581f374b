internal import CMicroHTTPD

/// A request's header fields where libmicrohttpd keeps them, read on demand, and its peer's
/// address, formatted only if asked for: a view of the connection's ``RequestState`` during one
/// handler call (a value, so a request allocates nothing for it).
///
/// Valid only while the access handler runs (the connection's buffer is reused afterwards): the
/// state's handler generation moves on as soon as the handler returns, and from then on every
/// header lookup through this view answers nothing rather than read freed memory. (A view keeps
/// its state from serving the connection's next request: a state still held is not reused.)
struct ReceivedHeaders: @unchecked Sendable {
  // @unchecked: the state's fields are read on its worker thread while its handler runs; after
  // that, on any thread, only the (atomic) generation and the peer address formatted earlier.
  private let request: RequestState
  private let generation: Int

  /// A view of the request whose handler is about to run.
  init(request: RequestState) {
    self.request = request
    self.generation = request.handlerGeneration
  }

  private var isOpen: Bool { request.handlerGeneration == generation }

  /// Where MHD reported each field, as offsets from `blockStart` (see ``HeaderBlockAudit``): a
  /// lookup reads these instead of asking MHD, whose list walk and the calls to reach it cost
  /// about 330 instructions a lookup, four lookups a command.
  private var fields: [HeaderBlockAudit.Field] { request.fields }
  private var blockStart: UInt { request.blockStart }

  /// The first value of `name`, its name compared without regard to ASCII case.
  func first(_ name: String) -> String? {
    firstValue(name).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The first value of `name` where MHD keeps it (valid while the handler runs), or nil; empty
  /// for an empty value. Names compare without regard to ASCII case, as MHD compares them.
  func firstValue(_ name: String) -> UnsafeBufferPointer<UInt8>? {
    guard isOpen, request.nameLengths & (1 &<< UInt64(name.utf8.count & 63)) != 0 else {
      return nil
    }
    var name = name
    let value = name.withUTF8 { firstValue(named: $0) }
    guard let value else { return nil }
    guard value.length > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
    let start = UnsafePointer<UInt8>(bitPattern: blockStart &+ UInt(bitPattern: value.offset))
    return UnsafeBufferPointer(start: start, count: value.length)
  }

  /// Where the first field called `name` has its value; the fields lie inside the block, which
  /// the audit checked before any handler runs.
  private func firstValue(named name: UnsafeBufferPointer<UInt8>) -> HeaderBlockAudit.Span? {
    guard let block = UnsafePointer<UInt8>(bitPattern: blockStart), let wanted = name.baseAddress
    else { return nil }
    for field in fields where field.name.length == name.count {
      if FieldName.equal(block + field.name.offset, wanted, count: name.count) {
        return field.value
      }
    }
    return nil
  }

  /// Every field, in the order received.
  func all() -> [(String, String)] {
    guard isOpen, let connection = request.mhdConnection else { return [] }
    var fields: [(String, String)] = []
    withUnsafeMutablePointer(to: &fields) { output in
      _ = MHD_get_connection_values_n(connection, .HEADER_KIND, collectField, output)
    }
    return fields
  }

  /// "127.0.0.1", "::1", …; "" when unknown, or when first asked for after the handler returned
  /// (once formatted, it stays).
  var peerAddress: String {
    if let address = request.peerAddress { return address }
    guard isOpen, let connection = request.mhdConnection else { return "" }
    let text = PeerAddress.string(cmhd_client_address(connection))
    request.peerAddress = text
    return text
  }
}

/// MHD_KeyValueIteratorN appending to the `[(String, String)]` that `cls` points to.
private func collectField(
  _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
  _ keySize: Int, _ value: UnsafePointer<CChar>?, _ valueSize: Int
) -> MHD_Result {
  guard let cls, let key else { return .YES }
  let fields = cls.assumingMemoryBound(to: [(String, String)].self)
  fields.pointee.append((text(key, keySize), value.map { text($0, valueSize) } ?? ""))
  return .YES
}

private func text(_ pointer: UnsafePointer<CChar>, _ count: Int) -> String {
  pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
    String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
  }
}

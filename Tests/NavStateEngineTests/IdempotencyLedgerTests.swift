import Testing

@testable import NavStateEngine

@Suite("Idempotency ledger")
struct IdempotencyLedgerTests {
  private func decision(_ fingerprint: [UInt8], status: Int = 200, body: String = "{}")
    -> IdempotencyLedger.Decision
  {
    .init(
      fingerprint: fingerprint, status: status,
      headers: [.init(name: "Content-Type", value: "application/json")], body: Array(body.utf8))
  }

  private let request = IdempotencyLedger.fingerprint(
    method: "POST", path: "/v1/sessions/x/push", body: Array("{}".utf8))

  @Test("claimed, then in use, then replayed; another request under the key is reused")
  func lifecycle() {
    let ledger = IdempotencyLedger()
    let other = IdempotencyLedger.fingerprint(
      method: "POST", path: "/v1/sessions/x/pop", body: Array("{}".utf8))
    #expect(ledger.claim("k", fingerprint: request) == .claimed)
    #expect(ledger.claim("k", fingerprint: request) == .inUse)
    #expect(ledger.claim("k", fingerprint: other) == .reused)
    ledger.settle("k", with: decision(request))
    #expect(ledger.claim("k", fingerprint: request) == .replay(decision(request)))
    #expect(ledger.claim("k", fingerprint: other) == .reused)
  }

  @Test("a released key (no decision) is claimed afresh")
  func released() {
    let ledger = IdempotencyLedger()
    #expect(ledger.claim("k", fingerprint: request) == .claimed)
    ledger.release("k")
    #expect(ledger.claim("k", fingerprint: request) == .claimed)
  }

  @Test("fingerprints differ by method, path and body, and by where one ends")
  func fingerprints() {
    let base = IdempotencyLedger.fingerprint(method: "POST", path: "/a", body: [1])
    #expect(base == IdempotencyLedger.fingerprint(method: "POST", path: "/a", body: [1]))
    #expect(base != IdempotencyLedger.fingerprint(method: "PUT", path: "/a", body: [1]))
    #expect(base != IdempotencyLedger.fingerprint(method: "POST", path: "/b", body: [1]))
    #expect(base != IdempotencyLedger.fingerprint(method: "POST", path: "/a", body: [2]))
    #expect(
      IdempotencyLedger.fingerprint(method: "POST", path: "/ab", body: [])
        != IdempotencyLedger.fingerprint(method: "POST", path: "/a", body: Array("b".utf8)))
  }

  @Test("keys: 1 to 64 visible ASCII characters")
  func validKeys() {
    #expect(IdempotencyLedger.isValidKey("a"))
    #expect(IdempotencyLedger.isValidKey(String(repeating: "~", count: 64)))
    #expect(!IdempotencyLedger.isValidKey(""))
    #expect(!IdempotencyLedger.isValidKey(String(repeating: "a", count: 65)))
    #expect(!IdempotencyLedger.isValidKey("a b"))
    #expect(!IdempotencyLedger.isValidKey("a\tb"))
    #expect(!IdempotencyLedger.isValidKey("\u{e9}"))
  }

  @Test("the newest 256 decided keys are kept, and the footprint follows them")
  func capacity() {
    let ledger = IdempotencyLedger()
    let empty = ledger.footprint
    for index in 0..<IdempotencyLedger.capacity {
      ledger.settle("k\(index)", with: decision(request, body: String(repeating: "x", count: 100)))
    }
    let full = ledger.footprint
    #expect(full > empty + IdempotencyLedger.capacity * 100)
    ledger.settle("new", with: decision(request, body: String(repeating: "x", count: 100)))
    #expect(ledger.footprint == full)
    #expect(ledger.claim("k0", fingerprint: request) == .claimed)
    #expect(
      ledger.claim("k1", fingerprint: request)
        == .replay(decision(request, body: String(repeating: "x", count: 100))))
    #expect(ledger.decisions.count == IdempotencyLedger.capacity)
    #expect(ledger.decisions.first?.key == "k1")
    #expect(ledger.decisions.last?.key == "new")
  }

  @Test("a decision reads back as it was written, and damage reads as nothing")
  func encoding() {
    var bytes: [UInt8] = []
    let written = decision(request, status: 409, body: #"{"code":"x"}"#)
    IdempotencyLedger.Decision.append(key: "key-1", written, to: &bytes)
    var reader = ByteReader(bytes)
    let read = IdempotencyLedger.Decision.read(&reader)
    #expect(read?.key == "key-1")
    #expect(read?.decision == written)
    #expect(reader.isAtEnd)
    for cut in [1, 10, 40, bytes.count - 1] {
      var short = ByteReader(Array(bytes.prefix(cut)))
      #expect(IdempotencyLedger.Decision.read(&short) == nil, "cut at \(cut)")
    }
  }
}

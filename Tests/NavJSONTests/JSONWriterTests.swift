import Testing

@testable import NavJSON

@Suite("JSON writer")
struct JSONWriterTests {
  func text(_ writer: borrowing JSONWriter) -> String {
    String(decoding: writer.bytes, as: UTF8.self)
  }

  @Test("commas and nesting are placed by the writer")
  func structure() {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("a")
    writer.beginArray()
    writer.int(1)
    writer.string("two")
    writer.beginObject()
    writer.endObject()
    writer.beginArray()
    writer.endArray()
    writer.bool(false)
    writer.endArray()
    writer.key("b")
    writer.null()
    writer.key("c")
    writer.raw(Array("[1,2]".utf8))
    writer.key("d")
    writer.double(0.5)
    writer.endObject()
    #expect(text(writer) == #"{"a":[1,"two",{},[],false],"b":null,"c":[1,2],"d":0.5}"#)
  }

  @Test("top-level values and a plain string written from bytes")
  func scalars() {
    var writer = JSONWriter()
    writer.int(-42)
    #expect(text(writer) == "-42")
    var plain = JSONWriter()
    plain.beginArray()
    Array("c12".utf8).withUnsafeBufferPointer { plain.plainString($0) }
    plain.int(0)
    plain.endArray()
    #expect(text(plain) == #"["c12",0]"#)
    var names = JSONWriter()
    names.beginObject()
    names.key(plain: "route_1")
    names.plainString("detail")
    names.key("type")
    names.plainString(StaticString("coordinator.started"))
    names.endObject()
    #expect(text(names) == #"{"route_1":"detail","type":"coordinator.started"}"#)
  }

  @Test("the writer grows past the capacity it was given, keeping what it wrote")
  func growth() throws {
    var writer = JSONWriter(capacity: 1)
    var expected: [JSONObject.Member] = []
    writer.beginObject()
    for index in 0..<2_000 {
      let name = "k\(index)\""
      let value: JSONValue = [.string("item \(index)\n"), .int(index * 1_000_003), true, nil]
      writer.key(named: name)
      writer.beginArray()
      writer.string("item \(index)\n")
      writer.int(index * 1_000_003)
      writer.bool(true)
      writer.null()
      writer.endArray()
      expected.append(JSONObject.Member(key: name, value: value))
    }
    writer.key("last")
    Array("plain".utf8).withUnsafeBufferPointer { writer.plainString($0) }
    writer.endObject()
    expected.append(JSONObject.Member(key: "last", value: "plain"))
    #expect(writer.byteCount == writer.bytes.count)
    #expect(writer.byteCount > 60_000)
    #expect(try JSONParser.parse(writer.bytes) == .object(JSONObject(expected)))
  }

  @Test("integers: zero, single digits, many digits, the extremes")
  func integers() {
    for value in [0, 7, 10, 99, 1_234_567_890, Int.max, -1, Int.min] {
      #expect(JSONValue.int(value).encodedString == String(value))
    }
    // Every length: each power of ten and the number before it.
    var power = 1
    for _ in 0..<19 {
      for value in [power - 1, power, power + 1] {
        #expect(JSONValue.int(value).encodedString == String(value))
      }
      power = power.multipliedReportingOverflow(by: 10).partialValue
    }
    var digits: [UInt8] = []
    JSONWriter.appendDigits(of: 9_007_199_254_740_993, to: &digits)
    #expect(String(decoding: digits, as: UTF8.self) == "9007199254740993")
  }

  @Test("doubles are written so they read back; non-finite ones become null")
  func doubles() throws {
    for value in [
      0.1, -2.5, 1e300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1.0, 123_456.789, -0.0,
    ] {
      let written = JSONValue.double(value).encoded
      #expect(try JSONParser.parse(written).doubleValue == value, "\(value)")
    }
    #expect(JSONValue.double(.infinity).encodedString == "null")
    #expect(JSONValue.double(-.infinity).encodedString == "null")
    #expect(JSONValue.double(.nan).encodedString == "null")
  }

  @Test("strings: quote, backslash and every control character are escaped")
  func escaping() throws {
    let value: JSONValue = .string("q\"b\\n\n\r\t\u{01}\u{08}\u{0C}\u{1F}é/\u{7F}😀")
    #expect(
      value.encodedString == #""q\"b\\n\n\r\t\u0001\u0008\u000c\u001fé/\#u{7F}😀""#)
    for scalar in 0..<0x20 {
      let text = String(Character(Unicode.Scalar(UInt8(scalar))))
      let written = JSONValue.string(text).encoded
      #expect(!written.contains { $0 < 0x20 }, "U+\(scalar) written raw")
      #expect(try JSONParser.parse(written) == .string(text))
    }
    var writer = JSONWriter()
    writer.beginObject()
    writer.key(named: "a\"\n")
    writer.int(1)
    writer.endObject()
    #expect(text(writer) == #"{"a\"\n":1}"#)
  }

  @Test("what is written reads back as the same value")
  func roundTrip() throws {
    let value: JSONValue = [
      "s": "text ✓ \u{0}\u{1F} \"q\" \\", "i": -42, "big": .int(Int.max), "d": 0.25, "t": true,
      "f": false, "n": nil, "a": [1, [2, [3, []]], [:]], "o": ["k": "v", "k2": ["x": nil]],
      "": "empty key", "😀": "emoji key",
    ]
    let written = value.encoded
    #expect(try JSONParser.parse(written) == value)
    // Writing what was read gives the same bytes: member order is kept.
    #expect(try JSONParser.parse(written).encoded == written)
    let text = #"{"z":1,"a":[true,null,"\u00e9"],"m":{"y":-0.5}}"#
    #expect(
      try JSONParser.parse(text).encodedString == #"{"z":1,"a":[true,null,"é"],"m":{"y":-0.5}}"#)
  }
}

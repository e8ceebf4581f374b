import Testing

@testable import NavJSON

@Suite("JSON reader")
struct JSONParserTests {
  func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

  func failure(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
    do {
      _ = try JSONParser.parse(Array(text.utf8), maxDepth: maxDepth)
      return nil
    } catch {
      return error
    }
  }

  @Test("every kind of value, objects keeping their order")
  func values() throws {
    let value = try parse(#" {"b": [1, -2.5, 3e2, true, false, null], "a": "x", "c": {}} "#)
    #expect(value.objectValue?.keys == ["b", "a", "c"])
    #expect(value["b"] == [1, -2.5, 300.0, true, false, nil])
    #expect(value["a"] == "x")
    #expect(value["c"] == .object(JSONObject()))
  }

  @Test("integers stay integers; fractions and exponents are doubles")
  func numbers() throws {
    #expect(try parse("42") == .int(42))
    #expect(try parse("-0") == .int(0))
    #expect(try parse("1.0") == .double(1))
    #expect(try parse("9223372036854775807") == .int(Int.max))
    #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
    #expect(try parse("1.0").intValue == 1)
    #expect(try parse("1.5").intValue == nil)
    #expect(failure("1e999")?.reason == "number out of range")
  }

  @Test("escapes, including surrogate pairs")
  func escapes() throws {
    #expect(try parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\té😀"))
    #expect(failure(#""\ud83d""#)?.reason == "unpaired surrogate")
    #expect(failure(#""\ude00""#)?.reason == "unpaired surrogate")
    #expect(failure(#""\x""#)?.reason == "invalid escape")
  }

  @Test("malformed documents are refused with the offset where reading stopped")
  func malformed() {
    #expect(failure(#"{"a": 1"#)?.reason == "unexpected end of input")
    #expect(failure(#"{"a" 1}"#)?.offset == 5)
    #expect(failure("[1,]") != nil)
    #expect(failure("01") != nil)
    #expect(failure("tru") != nil)
    #expect(failure("\"a\nb\"")?.reason == "control character in string")
    #expect(failure("[] []")?.reason == "unexpected data after the value")
    #expect(failure("")?.reason == "unexpected end of input")
    #expect(failure("{'a': 1}") != nil)
  }

  @Test("invalid UTF-8 in a string is refused")
  func invalidUTF8() {
    do {
      _ = try JSONParser.parse([0x22, 0xFF, 0x22])
      Issue.record("accepted invalid UTF-8")
    } catch {
      #expect(error.reason == "invalid UTF-8 in string")
    }
  }

  @Test("nesting beyond the limit is refused without exhausting the stack")
  func depth() throws {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect(failure(deep)?.reason.contains("nesting deeper than 64") == true)
    let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
    #expect(failure(ok) == nil)
    #expect(
      failure(String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65))
        != nil)
  }
}

@Suite("JSON writer")
struct JSONWriterTests {
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
    writer.endArray()
    writer.key("b")
    writer.null()
    writer.endObject()
    #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"a":[1,"two",{}],"b":null}"#)
  }

  @Test("strings are escaped, control characters included")
  func escaping() {
    let value: JSONValue = .string("q\"b\\n\n\r\t\u{01}é")
    #expect(value.encodedString == #""q\"b\\n\n\r\t\u0001é""#)
  }

  @Test("what is written reads back as the same value")
  func roundTrip() throws {
    let value: JSONValue = [
      "s": "text ✓", "i": -42, "d": 0.25, "t": true, "n": nil, "a": [1, [2, [3]]], "o": ["k": "v"],
    ]
    #expect(try JSONParser.parse(value.encoded) == value)
  }
}

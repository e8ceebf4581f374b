import Testing

@testable import NavJSON

@Suite("JSON reader")
struct JSONParserTests {
  func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

  func failure(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
    failure(Array(text.utf8), maxDepth: maxDepth)
  }

  func failure(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
    do {
      _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
      return nil
    } catch {
      return error
    }
  }

  @Test("every kind of value; objects keep their members in order")
  func values() throws {
    let value = try parse(
      #" {"b": [1, -2.5, 3e2, true, false, null], "a": "x", "c": {}, "d": []} "#)
    #expect(value.objectValue?.keys == ["b", "a", "c", "d"])
    #expect(value["b"] == [1, -2.5, 300.0, true, false, nil])
    #expect(value["a"] == "x")
    #expect(value["c"] == .object(JSONObject()))
    #expect(value["d"] == .array([]))
    #expect(value["b"]?[0]?.intValue == 1)
    #expect(value["b"]?[3]?.boolValue == true)
    #expect(value["b"]?[5] == .null)
    #expect(value["b"]?[6] == nil)
    #expect(value["missing"] == nil)
    #expect(try parse("null") == .null)
    #expect(try parse(" \t\r\n\"s\" \n") == "s")
  }

  @Test("a repeated key is refused where it repeats: which one counts would be a guess")
  func repeatedKey() throws {
    let error = failure(#"{"a": 1, "a": 2}"#)
    #expect(error?.reason == "duplicate key 'a'")
    #expect(error?.offset == 9)
    #expect(failure(#"{"a": {"b": 1, "b": 1}}"#)?.reason == "duplicate key 'b'")
    // The same key in different objects is fine.
    #expect(try parse(#"[{"a": 1}, {"a": 2}, {"b": {"a": 3}}]"#)[2]?["b"]?["a"] == 3)
  }

  @Test("numbers that are exactly integers within Int64 read as ints, whatever their notation")
  func numbers() throws {
    #expect(try parse("42") == .int(42))
    #expect(try parse("-7") == .int(-7))
    #expect(try parse("0") == .int(0))
    #expect(try parse("-0") == .int(0))
    #expect(try parse("1.0") == .int(1))
    #expect(try parse("1e2") == .int(100))
    #expect(try parse("1E+2") == .int(100))
    #expect(try parse("25e-2") == .double(0.25))
    #expect(try parse("-0.5") == .double(-0.5))
    #expect(try parse("9223372036854775807") == .int(Int.max))
    #expect(try parse("-9223372036854775808") == .int(Int.min))
    #expect(try parse("-9.223372036854775808e18") == .int(Int.min))
    // Beyond 2^53 integers stay exact: no trip through a double.
    #expect(try parse("9007199254740993") == .int(9_007_199_254_740_993))
    #expect(try parse("9007199254740993.000") == .int(9_007_199_254_740_993))
    #expect(try parse("90071992547409.93e2") == .int(9_007_199_254_740_993))
    // Not integers, or not within Int64: doubles, and never an intValue.
    #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
    #expect(try parse("9223372036854775808").intValue == nil)
    #expect(try parse("1e-999").intValue == nil)
    #expect(try parse("1e-999") == .double(0))
    #expect(try parse("1.5").intValue == nil)
    #expect(try parse("1.00000000000000000001").intValue == nil)
    #expect(try parse("1e19").intValue == nil)
    #expect(try parse("0e99999999999") == .int(0))
    #expect(try parse("1.0").intValue == 1)
    #expect(try parse("1e2").intValue == 100)
    #expect(try parse("1.5").intValue == nil)
    #expect(try parse("1e300").intValue == nil)
    #expect(try parse("3").doubleValue == 3)
    #expect(try parse("\"3\"").intValue == nil)
    #expect(failure("1e999")?.reason == "number out of range")
    #expect(failure("-1e999")?.reason == "number out of range")
  }

  @Test(
    "every number is written back exactly as it was sent",
    arguments: [
      "12345678901234567890123", "123456789.123456789123", "4.2e1", "42.0", "-0", "1.50",
      "1E+2", "-9.223372036854775808e18", "1e-999", "0.1", "9007199254740993", "-12",
    ])
  func numbersKeepTheirText(_ text: String) throws {
    let value = try parse(text)
    #expect(value.encodedString == text)
    #expect(try parse("{\"n\":[\(text)]}").encodedString == "{\"n\":[\(text)]}")
    // Kept as written, the value is still read the same way.
    #expect(value.doubleValue == Double(text))
  }

  @Test("equal numbers are equal values and hash alike, however they were written")
  func numberEquality() throws {
    let pairs: [(String, JSONValue)] = [
      ("42.0", .int(42)), ("4.2e1", 42), ("25e-2", .double(0.25)), ("1.50", 1.5), ("-0", 0),
    ]
    for (text, value) in pairs {
      let parsed = try parse(text)
      #expect(parsed == value, "\(text)")
      #expect(parsed.hashValue == value.hashValue, "\(text)")
    }
    #expect(try parse("1.5") != .int(1))
    #expect(try parse("9007199254740993") != .int(9_007_199_254_740_992))
    #expect(try parse("9007199254740993.0") != .int(9_007_199_254_740_992))
    #expect(JSONNumber(validating: "1.50")?.text == "1.50")
    #expect(JSONNumber(validating: "1.5x") == nil)
    #expect(JSONNumber(validating: "\"1\"") == nil)
  }

  @Test(
    "malformed numbers are refused with the offset where reading stopped",
    arguments: [
      ("-", 1, "invalid number"), ("1.", 2, "invalid number"), ("1.e3", 2, "invalid number"),
      ("1e", 2, "invalid number"), ("1e+", 3, "invalid number"), ("-a", 1, "invalid number"),
      (".5", 0, "unexpected character"), ("+1", 0, "unexpected character"),
      ("01", 1, "unexpected data after the value"), ("-01", 2, "unexpected data after the value"),
      ("0x10", 1, "unexpected data after the value"), ("1 2", 2, "unexpected data after the value"),
    ])
  func badNumbers(text: String, offset: Int, reason: String) {
    let found = failure(text)
    #expect(found?.offset == offset, "\(text)")
    #expect(found?.reason == reason, "\(text)")
  }

  @Test("escapes, including surrogate pairs")
  func escapes() throws {
    #expect(
      try parse(#""a\"b\\c\/d\b\f\n\r\t\u00e9\u20AC\ud83d\ude00""#)
        == .string("a\"b\\c/d\u{08}\u{0C}\n\r\té€😀"))
    #expect(try parse(#""\u0000""#) == .string("\u{0}"))
    #expect(try parse(#""\uD834\uDD1E""#) == .string("𝄞"))
    // Raw UTF-8 passes through, before and after escapes.
    #expect(try parse("\"é\\n😀\"") == .string("é\n😀"))
  }

  @Test(
    "bad escapes and surrogates are refused",
    arguments: [
      (#""\ud83d""#, "unpaired surrogate"), (#""\ud83dx""#, "unpaired surrogate"),
      (#""\ud83d\u0041""#, "unpaired surrogate"), (#""\ude00""#, "unpaired surrogate"),
      (#""\ud83d\ud83d""#, "unpaired surrogate"), (#""\x""#, "invalid escape"),
      (#""\u12""#, "unterminated escape"), (#""\u12g4""#, "invalid hex digit"),
      (#""\"#, "unterminated escape"), (#""abc"#, "unterminated string"),
      (#""a\nb"#, "unterminated string"),
    ])
  func badEscapes(text: String, reason: String) {
    #expect(failure(text)?.reason == reason, "\(text)")
  }

  @Test("malformed documents are refused with the offset where reading stopped")
  func malformed() {
    #expect(failure(#"{"a": 1"#)?.reason == "unexpected end of input")
    #expect(failure(#"{"a": 1"#)?.offset == 7)
    #expect(failure(#"{"a" 1}"#)?.offset == 5)
    #expect(failure(#"{"a" 1}"#)?.reason == "expected ':'")
    #expect(failure(#"{"a": 1 "b": 2}"#)?.reason == "expected ',' or '}'")
    #expect(failure(#"{"a": 1,}"#)?.reason == "expected a string key")
    #expect(failure(#"{"a": 1,}"#)?.offset == 8)
    #expect(failure("{1: 2}")?.reason == "expected a string key")
    #expect(failure("{'a': 1}")?.offset == 1)
    #expect(failure("[1,]")?.offset == 3)
    #expect(failure("[1,]")?.reason == "unexpected character")
    #expect(failure("[1 2]")?.reason == "expected ',' or ']'")
    #expect(failure("[")?.reason == "unexpected end of input")
    #expect(failure("tru")?.reason == "unexpected end of input")
    #expect(failure("trux")?.reason == "invalid literal")
    #expect(failure("nul")?.offset == 0)
    #expect(failure("True")?.reason == "unexpected character")
    #expect(failure("\"a\nb\"")?.reason == "control character in string")
    #expect(failure("\"a\nb\"")?.offset == 2)
    #expect(failure("\"\\n\u{01}\"")?.reason == "control character in string")
    #expect(failure("")?.reason == "unexpected end of input")
    #expect(failure("   ")?.offset == 3)
    // Whitespace is space, tab, CR and LF only.
    #expect(failure("\u{0C}1")?.reason == "unexpected character")
    #expect(failure("\u{A0}1") != nil)
  }

  @Test("errors name the line and the column, counted from 1, for the person fixing the file")
  func lineAndColumn() {
    let error = failure("{\n  \"name\": \"x\",\n  oops\n}")
    #expect(error?.line == 3)
    #expect(error?.column == 3)
    #expect(error?.offset == 19)
    #expect(error?.description == "expected a string key at line 3, column 3")
    #expect(failure("[1,]")?.line == 1)
    #expect(failure("[1,]")?.column == 4)
    // An error at the very end, after a final newline, is on the line after it.
    #expect(failure("[1,\n")?.line == 2)
    #expect(failure("[1,\n")?.column == 1)
  }

  @Test("hostile shapes cost linear work: a hundred thousand zeros, a thousand keys")
  func hostileShapes() throws {
    let zeros = String(repeating: "0", count: 100_000)
    #expect(try parse("0.\(zeros)1") == .double(0))
    #expect(try parse("0.\(zeros)1").intValue == nil)
    #expect(try parse("7.\(zeros)") == .int(7))
    let keys = (0..<1000).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
    #expect(try parse("{\(keys)}")["k999"] == 999)
    #expect(failure("{\(keys), \"k500\": 1}")?.reason == "duplicate key 'k500'")
  }

  @Test("trailing data after the value is refused")
  func trailingData() {
    #expect(failure("[] []")?.reason == "unexpected data after the value")
    #expect(failure("[] []")?.offset == 3)
    #expect(failure("{}}")?.offset == 2)
    #expect(failure("truex")?.offset == 4)
    #expect(failure("\"a\"\"b\"")?.offset == 3)
    #expect(failure("1 \u{0}")?.offset == 2)
  }

  @Test("invalid UTF-8 in a string is refused, with or without escapes")
  func invalidUTF8() {
    #expect(failure([0x22, 0xFF, 0x22])?.reason == "invalid UTF-8 in string")
    #expect(failure([0x22, 0x5C, 0x6E, 0xC3, 0x22])?.reason == "invalid UTF-8 in string")
    // An encoded surrogate (U+D800) and an overlong '/' are not UTF-8.
    #expect(failure([0x22, 0xED, 0xA0, 0x80, 0x22])?.reason == "invalid UTF-8 in string")
    #expect(failure([0x22, 0xC0, 0xAF, 0x22])?.reason == "invalid UTF-8 in string")
  }

  @Test("1000 nested arrays are refused at the depth limit without exhausting the stack")
  func depth() throws {
    let thousand = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
    let refused = failure(thousand)
    #expect(refused?.reason == "nesting deeper than 64 levels")
    #expect(refused?.offset == 64)
    let deep = String(repeating: "[", count: 200_000)
    #expect(failure(deep)?.reason.contains("nesting deeper than 64") == true)
    let atLimit = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
    #expect(failure(atLimit) == nil)
    let objects =
      String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)
    #expect(failure(objects)?.reason == "nesting deeper than 64 levels")
    #expect(
      failure(String(repeating: "{\"a\":", count: 64) + "1" + String(repeating: "}", count: 64))
        == nil)
    // The limit is the caller's to set.
    #expect(failure(thousand, maxDepth: 1000) == nil)
    #expect(failure("[[1]]", maxDepth: 1)?.offset == 1)
    #expect(failure("1", maxDepth: 0) == nil)
  }

  @Test("typed accessors answer only for their kind")
  func accessors() throws {
    let value: JSONValue = ["s": "x", "n": 1, "o": ["k": true]]
    #expect(value["s"]?.stringValue == "x")
    #expect(value["s"]?.intValue == nil)
    #expect(value["n"]?.stringValue == nil)
    #expect(value["o"]?["k"]?.boolValue == true)
    #expect(value["o"]?.arrayValue == nil)
    #expect(value[0] == nil)
    #expect(value["s"]?.kindName == "string")
    #expect(JSONValue.double(1).kindName == "number")
    var object = JSONObject()
    object["a"] = 1
    object["b"] = 2
    object["a"] = 3
    #expect(object.keys == ["b", "a"])
    object["b"] = nil
    #expect(object.keys == ["a"])
  }
}

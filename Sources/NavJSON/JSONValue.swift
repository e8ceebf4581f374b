/// A JSON document as a value. Objects keep their members in the order they were written,
/// so what a client sends is echoed back the way it was sent.
///
/// Numbers read from JSON text keep that text: a value is written back exactly as it was sent
/// (`1.50`, `4.2e1`, `12345678901234567890123`), whatever a `Double` would make of it.
public enum JSONValue: Sendable, Equatable, Hashable {
  case null
  case bool(Bool)
  /// An integer within Int64: one written as plain digits, or one made in code.
  case int(Int)
  /// A number made in code (written back in its shortest form).
  case double(Double)
  /// A number as it was written, when that is not plain digits within Int64.
  case number(JSONNumber)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  public var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// Only an exact integer within Int64, however it was written (`42`, `42.0`, `4.2e1`): a
  /// fraction is never rounded into one.
  public var intValue: Int? {
    switch self {
    case .int(let value): return value
    case .number(let number): return number.integerValue
    default: return nil
    }
  }

  public var doubleValue: Double? {
    switch self {
    case .int(let value): return Double(value)
    case .double(let value): return value
    case .number(let number): return number.doubleValue
    default: return nil
    }
  }

  public var boolValue: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  public var objectValue: JSONObject? {
    if case .object(let value) = self { return value }
    return nil
  }

  public var arrayValue: [JSONValue]? {
    if case .array(let value) = self { return value }
    return nil
  }

  public subscript(key: String) -> JSONValue? {
    objectValue?[key]
  }

  public subscript(index: Int) -> JSONValue? {
    guard let elements = arrayValue, elements.indices.contains(index) else { return nil }
    return elements[index]
  }

  /// A short name of the value's kind, for error messages.
  public var kindName: String {
    switch self {
    case .null: "null"
    case .bool: "boolean"
    case .int, .double, .number: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }
}

extension JSONValue {
  /// Numbers are equal when their values are, however they are held (`.int(42)` and the parsed
  /// text `42.0`; `.double(0.25)` and `25e-2`): two exact integers compare exactly, any other
  /// pair as `Double`s. Everything else compares by case and contents.
  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.string(let a), .string(let b)): return a == b
    case (.array(let a), .array(let b)): return a == b
    case (.object(let a), .object(let b)): return a == b
    case (.int(let a), .int(let b)): return a == b
    default:
      guard let a = lhs.doubleValue, let b = rhs.doubleValue else { return false }
      if let exactA = lhs.exactInteger, let exactB = rhs.exactInteger { return exactA == exactB }
      return a == b
    }
  }

  public func hash(into hasher: inout Hasher) {
    switch self {
    case .null: hasher.combine(0)
    case .bool(let flag): hasher.combine(flag)
    case .string(let text): hasher.combine(text)
    case .array(let elements): hasher.combine(elements)
    case .object(let object): hasher.combine(object)
    // Equal numbers have equal `Double`s, whichever way they are compared.
    case .int, .double, .number: hasher.combine(doubleValue)
    }
  }

  /// The value as an exact integer, when it is one.
  private var exactInteger: Int? {
    switch self {
    case .int(let value): return value
    case .double(let value): return Int(exactly: value)
    case .number(let number): return number.integerValue
    default: return nil
    }
  }
}

/// A number as it was written in JSON text, checked against the grammar and finite, with its
/// value as an exact integer when it is one.
public struct JSONNumber: Sendable, Hashable {
  /// The number's JSON text, exactly as it was written.
  public let text: String
  /// The number when it is exactly an integer within Int64 (`42.0`, `4.2e1`), else nil.
  public let integerValue: Int?

  /// Made only by the parser, which has checked `text` against the grammar.
  init(text: String, integerValue: Int?) {
    self.text = text
    self.integerValue = integerValue
  }

  /// `text` if it is a JSON number (one the parser would keep as its text), else nil: for
  /// numbers read back from where they were kept.
  public init?(validating text: String) {
    guard case .number(let number) = try? JSONParser.parse(Array(text.utf8)) else { return nil }
    self = number
  }

  /// The nearest `Double` (the parser refuses text whose value is not finite).
  public var doubleValue: Double { Double(text) ?? .nan }
}

/// A JSON object: ordered members, looked up by key (the last member wins, as in most parsers).
public struct JSONObject: Sendable, Equatable, Hashable {
  public struct Member: Sendable, Equatable, Hashable {
    public var key: String
    public var value: JSONValue
    public init(key: String, value: JSONValue) {
      self.key = key
      self.value = value
    }
  }

  public var members: [Member]

  public init(_ members: [Member] = []) {
    self.members = members
  }

  public init(_ pairs: KeyValuePairs<String, JSONValue>) {
    self.members = pairs.map { Member(key: $0.key, value: $0.value) }
  }

  public subscript(key: String) -> JSONValue? {
    get { members.last(where: { $0.key == key })?.value }
    set {
      members.removeAll { $0.key == key }
      if let newValue { members.append(Member(key: key, value: newValue)) }
    }
  }

  public var keys: [String] { members.map(\.key) }
  public var isEmpty: Bool { members.isEmpty }

  /// The members whose value is not `null`: for documents where an explicit null means the
  /// same as an absent member, as typed clients write optional fields they do not set.
  public var withoutNulls: JSONObject {
    guard members.contains(where: { $0.value == .null }) else { return self }
    return JSONObject(members.filter { $0.value != .null })
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByBooleanLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .int(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  /// `4.0` is the integer 4, as it is when parsed: a number that is exactly an integer is `int`.
  public init(floatLiteral value: Double) {
    if value.rounded() == value, abs(value) <= 9_007_199_254_740_992 {
      self = .int(Int(value))
    } else {
      self = .double(value)
    }
  }
  public init(nilLiteral: ()) { self = .null }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(JSONObject(elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))
  }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self.init(elements.map { Member(key: $0.0, value: $0.1) })
  }
}

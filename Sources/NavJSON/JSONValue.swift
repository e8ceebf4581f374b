/// A JSON document as a value. Objects keep their members in the order they were written,
/// so what a client sends is echoed back the way it was sent.
public enum JSONValue: Sendable, Equatable, Hashable {
  case null
  case bool(Bool)
  /// A number that is exactly an integer within Int64, however it was written (`42`, `4.2e1`).
  case int(Int)
  /// Any other number: it has a fractional part, or it is outside Int64.
  case double(Double)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  public var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// Only an exact integer: a `double` is never rounded into one.
  public var intValue: Int? {
    if case .int(let value) = self { return value }
    return nil
  }

  public var doubleValue: Double? {
    switch self {
    case .int(let value): return Double(value)
    case .double(let value): return value
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
    case .int, .double: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }
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

public import NavJSON

/// The declared type of a route parameter.
public enum ParamType: String, Sendable, Hashable {
  case string
  case int
  case number
  case bool

  /// Converts a JSON value, or nil when it is not of this type. Integral numbers count as `int`.
  public func convert(_ value: JSONValue) -> ParamValue? {
    switch self {
    case .string: value.stringValue.map(ParamValue.string)
    case .int: value.intValue.map(ParamValue.int)
    case .number: value.doubleValue.map(ParamValue.number)
    case .bool: value.boolValue.map(ParamValue.bool)
    }
  }

  /// Converts text from a URL path segment or query item.
  public func convert(text: String) -> ParamValue? {
    switch self {
    case .string: .string(text)
    case .int: Int(text).map(ParamValue.int)
    case .number: Double(text).flatMap { $0.isFinite ? ParamValue.number($0) : nil }
    case .bool:
      switch text {
      case "true": .bool(true)
      case "false": .bool(false)
      default: nil
      }
    }
  }
}

/// A parameter value, already checked against its declared type.
public enum ParamValue: Sendable, Hashable {
  case string(String)
  case int(Int)
  case number(Double)
  case bool(Bool)

  public var json: JSONValue {
    switch self {
    case .string(let value): .string(value)
    case .int(let value): .int(value)
    case .number(let value): .double(value)
    case .bool(let value): .bool(value)
    }
  }
}

/// One parameter declaration of a route.
public struct ParamSpec: Sendable, Hashable {
  public var type: ParamType
  public var required: Bool
  public var defaultValue: ParamValue?
  /// Shown as `"[redacted]"` wherever redaction applies (recordings; `"sensitive": true`).
  public var sensitive: Bool

  public init(
    type: ParamType, required: Bool = false, defaultValue: ParamValue? = nil,
    sensitive: Bool = false
  ) {
    self.type = type
    self.required = required
    self.defaultValue = defaultValue
    self.sensitive = sensitive
  }
}

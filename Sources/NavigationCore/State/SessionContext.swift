public import NavJSON

/// One value of a session's context: what the app's backend says about the user.
public enum ContextValue: Sendable, Hashable {
  case string(String)
  case int(Int64)
  case bool(Bool)
  case strings([String])

  /// Nil for what a context may not hold (null, numbers with a fraction, objects, arrays of
  /// anything but strings).
  public init?(json: JSONValue) {
    switch json {
    case .string(let text): self = .string(text)
    case .bool(let flag): self = .bool(flag)
    case .int, .number, .double:
      guard let number = json.intValue else { return nil }
      self = .int(Int64(number))
    case .array(let elements):
      var texts: [String] = []
      texts.reserveCapacity(elements.count)
      for element in elements {
        guard let text = element.stringValue else { return nil }
        texts.append(text)
      }
      self = .strings(texts)
    case .null, .object:
      return nil
    }
  }

  public var json: JSONValue {
    switch self {
    case .string(let text): .string(text)
    case .int(let number): .int(Int(number))
    case .bool(let flag): .bool(flag)
    case .strings(let texts): .array(texts.map(JSONValue.string))
    }
  }
}

/// A session's context: a JSON object set only by the app's backend, read by route guards.
///
/// Kept sorted by key, so two contexts with the same members are equal and encode alike
/// whatever order they were written in.
public struct SessionContext: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
  public struct Member: Sendable, Hashable {
    public var key: String
    public var value: ContextValue
  }

  /// The most a context may take once encoded as JSON (docs/behaviour.md section 9).
  public static let maxEncodedBytes = 4096

  public private(set) var members: [Member] = []

  public init() {}

  public init(dictionaryLiteral elements: (String, ContextValue)...) {
    for (key, value) in elements { self[key] = value }
  }

  /// The context a JSON object describes; refused (`invalid_context`, `context_too_large`)
  /// when it is not an object of allowed values or is over the limit.
  public init(json: JSONValue) throws(NavigationError) {
    guard let object = json.objectValue else {
      throw NavigationError(.invalidContext, "the context must be a JSON object")
    }
    var context = SessionContext()
    for member in object.members {
      context[member.key] = try Self.value(member.value, key: member.key)
    }
    try context.checkSize()
    self = context
  }

  public var isEmpty: Bool { members.isEmpty }
  public var count: Int { members.count }
  public var keys: [String] { members.map(\.key) }

  private func position(of key: String) -> (found: Bool, index: Int) {
    var low = 0
    var high = members.count
    while low < high {
      let middle = (low + high) / 2
      if members[middle].key < key { low = middle + 1 } else { high = middle }
    }
    return (low < members.count && members[low].key == key, low)
  }

  public subscript(key: String) -> ContextValue? {
    get {
      let (found, index) = position(of: key)
      return found ? members[index].value : nil
    }
    set {
      let (found, index) = position(of: key)
      switch (found, newValue) {
      case (true, let value?): members[index].value = value
      case (true, nil): members.remove(at: index)
      case (false, let value?): members.insert(Member(key: key, value: value), at: index)
      case (false, nil): break
      }
    }
  }

  public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

  public var json: JSONValue {
    .object(JSONObject(members.map { .init(key: $0.key, value: $0.value.json) }))
  }

  /// The size of `json` encoded, as the limit counts it.
  public var encodedBytes: Int { json.encodedString.utf8.count }

  public func checkSize() throws(NavigationError) {
    let size = encodedBytes
    guard size <= Self.maxEncodedBytes else {
      throw NavigationError(
        .contextTooLarge,
        "the context takes \(size) bytes encoded; at most \(Self.maxEncodedBytes) are kept")
    }
  }

  /// RFC 7396 merge patch: a member set to null is removed, any other value replaces the one
  /// there; a patch that is not an object replaces the whole context (and so must be one).
  /// Context values are never objects, so a nested object in the patch is refused rather
  /// than merged.
  public func merging(_ patch: JSONValue) throws(NavigationError) -> SessionContext {
    guard let object = patch.objectValue else { return try SessionContext(json: patch) }
    var merged = self
    for member in object.members {
      if member.value == .null {
        merged[member.key] = nil
      } else {
        merged[member.key] = try Self.value(member.value, key: member.key)
      }
    }
    try merged.checkSize()
    return merged
  }

  private static func value(_ json: JSONValue, key: String) throws(NavigationError)
    -> ContextValue
  {
    guard let value = ContextValue(json: json) else {
      throw NavigationError(
        .invalidContext,
        "context key \(quoted(key)) must be a string, an integer, a boolean or an array of strings, not \(json.kindName)"
      )
    }
    return value
  }
}

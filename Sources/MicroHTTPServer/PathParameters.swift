/// The values a request's path gave to a route's `{name}` segments, percent-decoded.
public struct PathParameters: Sendable {
  public private(set) var pairs: [(String, String)]

  public init(_ pairs: [(String, String)] = []) {
    self.pairs = pairs
  }

  /// The value of `{name}`, or nil if the route has no such parameter.
  public subscript(name: String) -> String? {
    for (key, value) in pairs where key == name {
      return value
    }
    return nil
  }
}

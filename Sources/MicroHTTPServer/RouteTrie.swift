/// The ``Router``'s table: a trie of path segments kept in one flat array of nodes (children are
/// indices, so walking it copies nothing), matched against the path's UTF-8 bytes in place.
/// Modelled on Hummingbird 2's binary trie: no `String` per segment, no hashing.
struct RouteTrie: Sendable {
  struct Route: Sendable {
    var pattern: String
    var parameterNames: [String]
    var handler: Router.Handler
    var observer: Router.Observer?
  }

  struct Node: Sendable {
    /// Children by literal segment, compared byte for byte (a node has a handful at most).
    var literals: [(segment: [UInt8], child: Int)] = []
    /// The `{name}` child, if any.
    var parameter: Int?
    /// The routes that end here, by method (a handful at most, so a scan beats a hash).
    var routes: [(method: String, route: Route)] = []

    /// The route for `method`, HEAD falling back to GET.
    func route(for method: String) -> Route? {
      for entry in routes where entry.method == method { return entry.route }
      guard method == "HEAD" else { return nil }
      for entry in routes where entry.method == "GET" { return entry.route }
      return nil
    }
  }

  enum Key {
    case literal([UInt8])
    case parameter
  }

  private(set) var nodes = [Node()]

  mutating func insert(_ keys: [Key], method: String, route: Route) {
    var current = 0
    for key in keys {
      switch key {
      case .literal(let segment):
        if let found = nodes[current].literals.first(where: { $0.segment == segment }) {
          current = found.child
        } else {
          nodes.append(Node())
          nodes[current].literals.append((segment, nodes.count - 1))
          current = nodes.count - 1
        }
      case .parameter:
        if let child = nodes[current].parameter {
          current = child
        } else {
          nodes.append(Node())
          nodes[current].parameter = nodes.count - 1
          current = nodes.count - 1
        }
      }
    }
    nodes[current].routes.removeAll { $0.method == method }
    nodes[current].routes.append((method, route))
  }

  /// The first node where the path ends and `accept` holds, trying a literal child before the
  /// parameter child (depth first, backtracking). `path` is the path without its leading "/";
  /// its segments are split on "/" with empty ones kept. The parameters' byte ranges are
  /// appended to `captures`.
  func match(
    _ path: UnsafeBufferPointer<UInt8>, captures: inout [Range<Int>], accept: (Node) -> Bool
  ) -> Int? {
    match(node: 0, path, from: 0, captures: &captures, accept: accept)
  }

  private func match(
    node index: Int, _ path: UnsafeBufferPointer<UInt8>, from start: Int,
    captures: inout [Range<Int>], accept: (Node) -> Bool
  ) -> Int? {
    let node = nodes[index]
    var end = start
    while end < path.count && path[end] != UInt8(ascii: "/") { end += 1 }
    let isLast = end == path.count
    let next = end + 1
    for (segment, child) in node.literals where Self.equal(segment, path, start..<end) {
      if isLast {
        if accept(nodes[child]) { return child }
      } else if let found = match(
        node: child, path, from: next, captures: &captures, accept: accept)
      {
        return found
      }
    }
    if let child = node.parameter, end > start {
      captures.append(start..<end)
      if isLast {
        if accept(nodes[child]) { return child }
      } else if let found = match(
        node: child, path, from: next, captures: &captures, accept: accept)
      {
        return found
      }
      captures.removeLast()
    }
    return nil
  }

  private static func equal(
    _ segment: [UInt8], _ path: UnsafeBufferPointer<UInt8>, _ range: Range<Int>
  ) -> Bool {
    guard segment.count == range.count else { return false }
    var offset = range.lowerBound
    for byte in segment {
      guard path[offset] == byte else { return false }
      offset += 1
    }
    return true
  }
}

/// The ``Router``'s table: a trie of path segments, matched against the path's UTF-8 bytes in
/// place. Modelled on Hummingbird 2's binary trie: the nodes, their edges and the segments' bytes
/// lie in three flat arrays of plain values, so a match allocates nothing, copies no `String`,
/// hashes nothing and retains nothing.
struct RouteTrie: Sendable {
  struct Route: Sendable {
    var pattern: String
    var method: String
    var parameterNames: [String]
    var handler: Router.Handler
    var observer: Router.Observer?
  }

  enum Key {
    case literal([UInt8])
    case parameter
  }

  /// A literal child: its segment is `segments[start..<start + length]`.
  private struct Edge {
    var start: Int32
    var length: Int32
    var child: Int32
  }

  private struct Node {
    /// The node's edges are `edges[firstEdge..<firstEdge + edgeCount]`.
    var firstEdge: Int32 = 0
    var edgeCount: Int32 = 0
    /// The `{name}` child, or -1.
    var parameter: Int32 = -1
    /// The routes ending here are `routeSlots[firstRoute..<firstRoute + routeCount]`.
    var firstRoute: Int32 = 0
    var routeCount: Int32 = 0
  }

  /// Routes by position; `routesAt[node]` lists the positions of the routes ending at a node.
  private(set) var routes: [Route] = []
  private var routesAt: [[Int]] = [[]]
  private var nodes = [Node()]
  private var edges: [Edge] = []
  private var segments: [UInt8] = []
  /// Route positions, grouped by the node they end at; and each route's method, by position.
  private var routeSlots: [Int32] = []
  private var methods: [String] = []
  /// Children by node, as built; `nodes` and `edges` are laid out from it after each insert.
  private var literalChildren: [[(segment: [UInt8], child: Int)]] = [[]]

  /// Adds `route` at the path `keys`; the same method at the same path replaces the route.
  mutating func insert(_ keys: [Key], route: Route) {
    var current = 0
    for key in keys {
      switch key {
      case .literal(let segment):
        if let found = literalChildren[current].first(where: { $0.segment == segment }) {
          current = found.child
        } else {
          let child = addNode()
          literalChildren[current].append((segment, child))
          current = child
        }
      case .parameter:
        if nodes[current].parameter >= 0 {
          current = Int(nodes[current].parameter)
        } else {
          let child = addNode()
          nodes[current].parameter = Int32(child)
          current = child
        }
      }
    }
    if let existing = routesAt[current].first(where: { routes[$0].method == route.method }) {
      routes[existing] = route
    } else {
      routes.append(route)
      routesAt[current].append(routes.count - 1)
    }
    layOut()
  }

  /// The methods of the routes ending at `node`.
  func methods(at node: Int) -> [String] { routesAt[node].map { routes[$0].method } }

  /// The first node where the path ends with a route for `method` (HEAD falling back to GET;
  /// any route, when nil), and that route's position in `routes`, trying a literal child before
  /// the parameter child (depth first, backtracking). `path` is the path without its leading
  /// "/"; its segments are split on "/" with empty ones kept. The parameters' byte ranges go to
  /// `captures`.
  func match(_ path: UnsafeBufferPointer<UInt8>, method: String?, captures: inout Captures)
    -> (node: Int, route: Int)?
  {
    nodes.withUnsafeBufferPointer { nodes in
      edges.withUnsafeBufferPointer { edges in
        segments.withUnsafeBufferPointer { segments in
          routeSlots.withUnsafeBufferPointer { routeSlots in
            methods.withUnsafeBufferPointer { methods in
              Matcher(
                nodes: nodes, edges: edges, segments: segments, routeSlots: routeSlots,
                methods: methods, path: path, method: method
              ).match(node: 0, from: 0, captures: &captures)
            }
          }
        }
      }
    }
  }

  /// Up to four parameters' byte ranges, without an array.
  struct Captures {
    static let capacity = 4
    private(set) var count = 0
    private var ranges: (Range<Int>, Range<Int>, Range<Int>, Range<Int>) = (
      0..<0, 0..<0, 0..<0, 0..<0
    )

    mutating func append(_ range: Range<Int>) {
      switch count {
      case 0: ranges.0 = range
      case 1: ranges.1 = range
      case 2: ranges.2 = range
      default: ranges.3 = range
      }
      count += 1
    }

    mutating func removeLast() { count -= 1 }

    subscript(index: Int) -> Range<Int> {
      switch index {
      case 0: ranges.0
      case 1: ranges.1
      case 2: ranges.2
      default: ranges.3
      }
    }
  }

  private struct Matcher {
    let nodes: UnsafeBufferPointer<Node>
    let edges: UnsafeBufferPointer<Edge>
    let segments: UnsafeBufferPointer<UInt8>
    let routeSlots: UnsafeBufferPointer<Int32>
    let methods: UnsafeBufferPointer<String>
    let path: UnsafeBufferPointer<UInt8>
    let method: String?

    func match(node index: Int, from start: Int, captures: inout Captures)
      -> (node: Int, route: Int)?
    {
      let node = nodes[index]
      var end = start
      while end < path.count && path[end] != UInt8(ascii: "/") { end += 1 }
      let isLast = end == path.count
      let first = Int(node.firstEdge)
      for edge in edges[first..<(first + Int(node.edgeCount))]
      where equal(edge, start..<end) {
        if let found = descend(into: Int(edge.child), isLast: isLast, from: end + 1, &captures) {
          return found
        }
      }
      if node.parameter >= 0, end > start, captures.count < Captures.capacity {
        captures.append(start..<end)
        if let found = descend(
          into: Int(node.parameter), isLast: isLast, from: end + 1, &captures)
        {
          return found
        }
        captures.removeLast()
      }
      return nil
    }

    private func descend(into child: Int, isLast: Bool, from next: Int, _ captures: inout Captures)
      -> (node: Int, route: Int)?
    {
      if isLast { return route(at: child).map { (child, $0) } }
      return match(node: child, from: next, captures: &captures)
    }

    /// The route for `method` ending at `node`, HEAD falling back to GET (nil: the first route).
    private func route(at node: Int) -> Int? {
      let first = Int(nodes[node].firstRoute)
      let slots = routeSlots[first..<(first + Int(nodes[node].routeCount))]
      guard let method else { return slots.first.map(Int.init) }
      var getRoute: Int?
      for slot in slots {
        let routeMethod = methods[Int(slot)]
        if routeMethod == method { return Int(slot) }
        if method == "HEAD" && routeMethod == "GET" { getRoute = Int(slot) }
      }
      return getRoute
    }

    private func equal(_ edge: Edge, _ range: Range<Int>) -> Bool {
      guard Int(edge.length) == range.count else { return false }
      var offset = Int(edge.start)
      for position in range {
        guard path[position] == segments[offset] else { return false }
        offset += 1
      }
      return true
    }
  }

  private mutating func addNode() -> Int {
    nodes.append(Node())
    routesAt.append([])
    literalChildren.append([])
    return nodes.count - 1
  }

  /// Lays out `edges`, `segments` and `routeSlots` from what was built (routes are added at
  /// start-up only).
  private mutating func layOut() {
    edges.removeAll(keepingCapacity: true)
    segments.removeAll(keepingCapacity: true)
    routeSlots.removeAll(keepingCapacity: true)
    for (index, children) in literalChildren.enumerated() {
      nodes[index].firstEdge = Int32(edges.count)
      nodes[index].edgeCount = Int32(children.count)
      for (segment, child) in children {
        edges.append(
          Edge(start: Int32(segments.count), length: Int32(segment.count), child: Int32(child)))
        segments.append(contentsOf: segment)
      }
      nodes[index].firstRoute = Int32(routeSlots.count)
      nodes[index].routeCount = Int32(routesAt[index].count)
      routeSlots.append(contentsOf: routesAt[index].map { Int32($0) })
    }
    methods = routes.map(\.method)
  }
}

/// A coordinator's children, in order.
///
/// Most coordinators have none or one (the screen pushed over them, the sheet they present), and
/// every live coordinator of every session holds a list: up to one child is held inline, so that
/// such a list allocates nothing (an array of one costs a 48-byte heap block).
public struct CoordinatorChildren: RandomAccessCollection, Sendable, Equatable,
  ExpressibleByArrayLiteral
{
  private enum Storage: Sendable {
    case none
    case one(CoordinatorID)
    /// Two or more.
    case many([CoordinatorID])
  }

  private var storage: Storage

  public init(_ children: [CoordinatorID]) {
    switch children.count {
    case 0: storage = .none
    case 1: storage = .one(children[0])
    default: storage = .many(children)
    }
  }

  public init(arrayLiteral children: CoordinatorID...) {
    self.init(children)
  }

  public var startIndex: Int { 0 }

  public var endIndex: Int {
    switch storage {
    case .none: 0
    case .one: 1
    case .many(let children): children.count
    }
  }

  public subscript(position: Int) -> CoordinatorID {
    switch storage {
    case .one(let child):
      precondition(position == 0, "index out of range")
      return child
    case .many(let children):
      return children[position]
    case .none:
      preconditionFailure("index out of range")
    }
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.elementsEqual(rhs)
  }

  mutating func append(_ child: CoordinatorID) {
    switch storage {
    case .none:
      storage = .one(child)
    case .one(let first):
      storage = .many([first, child])
    case .many(var children):
      storage = .none  // lets go of the array, so that the append below changes it in place
      children.append(child)
      storage = .many(children)
    }
  }

  mutating func insert(_ child: CoordinatorID, at position: Int) {
    var children = Array(self)
    children.insert(child, at: position)
    self = Self(children)
  }

  mutating func removeAll(where shouldBeRemoved: (CoordinatorID) -> Bool) {
    guard contains(where: shouldBeRemoved) else { return }
    self = Self(filter { !shouldBeRemoved($0) })
  }
}

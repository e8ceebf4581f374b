/// A coordinator's parameters, complete: every declared parameter with a value or default is set.
///
/// A small array sorted by name rather than a dictionary: a route declares a handful, every
/// coordinator of every session holds one, and a dictionary of one entry takes twice the memory.
public struct Params: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
  fileprivate struct Member: Sendable, Hashable {
    var name: String
    var value: ParamValue
  }

  private var members: [Member] = []

  public init() {}

  public init(minimumCapacity: Int) {
    members.reserveCapacity(minimumCapacity)
  }

  public init(dictionaryLiteral elements: (String, ParamValue)...) {
    for (name, value) in elements { self[name] = value }
  }

  public var count: Int { members.count }
  public var isEmpty: Bool { members.isEmpty }
  /// The names, in order.
  public var keys: [String] { members.map(\.name) }

  private func position(of name: String) -> (found: Bool, index: Int) {
    var low = 0
    var high = members.count
    while low < high {
      let middle = (low + high) / 2
      if members[middle].name < name { low = middle + 1 } else { high = middle }
    }
    return (low < members.count && members[low].name == name, low)
  }

  public subscript(name: String) -> ParamValue? {
    get {
      let (found, index) = position(of: name)
      return found ? members[index].value : nil
    }
    set {
      let (found, index) = position(of: name)
      switch (found, newValue) {
      case (true, let value?): members[index].value = value
      case (true, nil): members.remove(at: index)
      case (false, let value?): members.insert(Member(name: name, value: value), at: index)
      case (false, nil): break
      }
    }
  }

  /// The UTF-8 bytes of the names and of the string values: what the params hold beyond their
  /// entries, read in place.
  public var textBytes: Int {
    var bytes = 0
    for index in members.indices {
      bytes += members[index].name.utf8.count
      if case .string(let text) = members[index].value { bytes += text.utf8.count }
    }
    return bytes
  }

  /// The parameters in name order. A concrete iterator: an opaque one is looked up at run time
  /// on every loop, and loops over params run on every operation.
  public struct Iterator: IteratorProtocol {
    fileprivate var members: IndexingIterator<[Member]>

    public mutating func next() -> (key: String, value: ParamValue)? {
      guard let member = members.next() else { return nil }
      return (member.name, member.value)
    }
  }

  public func makeIterator() -> Iterator {
    Iterator(members: members.makeIterator())
  }
}

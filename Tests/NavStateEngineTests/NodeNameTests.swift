import NavStateWire
import NavigationCore
import Testing

@testable import NavStateEngine

/// `--node`: ids start with the node's name and a dot; another node's ids are unknown here.
@Suite struct NodeNameTests {
  @Test func namesAreShortLowerCaseLettersDigitsAndHyphens() {
    for good in ["a", "east-1", "n0", String(repeating: "x", count: 32), "9-lives"] {
      #expect(NodeName(good) != nil, "\(good)")
    }
    for bad in ["", "East", "-east", "east.1", "east_1", "é", String(repeating: "x", count: 33)] {
      #expect(NodeName(bad) == nil, "\(bad)")
    }
  }

  @Test func onlyThisNodesIdsAreRead() throws {
    let node = try #require(NodeName("east-1"))
    let key = SessionID.random()
    let id = "east-1." + key.description
    #expect(node.key(of: id) == key)
    #expect(node.key(of: key.description) == nil)
    #expect(node.key(of: "west-2." + key.description) == nil)
    #expect(node.key(of: "east-10" + key.description) == nil)
    #expect(node.key(of: id + "A") == nil)
    #expect(node.key(of: "east-1.") == nil)
  }

  @Test func aStoreWithANodeNamesItsSessionsSo() throws {
    let graph = try BuiltInGraphs.load()[0]
    var configuration = StoreConfiguration()
    configuration.node = NodeName("east-1")
    let store = SessionStore(
      graphs: [graph], defaultGraph: graph.name, configuration: configuration)
    let (record, token) = try store.create(graph: nil, root: nil, client: "test", now: .now())
    #expect(record.id.hasPrefix("east-1."))
    #expect(record.id.utf8.count == 7 + 22)
    #expect(try store.authorize(id: record.id, token: token) === record)
    #expect(throws: EngineRefusal.self) {
      try store.authorize(id: String(record.id.dropFirst(7)), token: token)
    }
  }
}

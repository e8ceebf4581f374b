import NavJSON
import Testing

@testable import NavigationCore

/// Loading a graph's `version` and `migrate`: defaults, and every refusal with its message.
@Suite("graph versions")
struct GraphVersionTests {
  let routes =
    #"{"name":"home","next":["product","cart"]},{"name":"product"},{"name":"cart"}"#

  func document(_ fields: String) -> String {
    #"{"name":"shop","root":"home",\#(fields)"routes":[\#(routes)]}"#
  }

  func error(_ fields: String) -> String? {
    do {
      _ = try loadGraph(document(fields), source: "shop.json")
      return nil
    } catch {
      return error.description
    }
  }

  @Test("version defaults to 1; migrate defaults to none")
  func defaults() throws {
    let graph = try loadGraph(document(""))
    #expect(graph.version == 1)
    #expect(graph.migration == .none)
    #expect(graph.migration.isEmpty)
    #expect(try loadGraph(document(#""version":12,"#)).version == 12)
    #expect(demoGraph.version == 1)
  }

  @Test("migrate is read into renames and removals, null or replaced")
  func migrate() throws {
    let graph = try loadGraph(
      document(
        #""version":2,"migrate":{"renamed":{"item":"product"},"removed":{"promo":null,"legacy":"cart"}},"#
      ))
    #expect(
      graph.migration
        == GraphMigration(renamed: ["item": "product"], removed: ["promo": nil, "legacy": "cart"]))
    #expect(graph.migration.fate(of: "item", in: graph) == .shownAs("product"))
    #expect(graph.migration.fate(of: "promo", in: graph) == .stopped)
    #expect(graph.migration.fate(of: "legacy", in: graph) == .shownAs("cart"))
    #expect(graph.migration.fate(of: "home", in: graph) == .shownAs("home"))
    // Neither declared nor named: removed.
    #expect(graph.migration.fate(of: "gone", in: graph) == .stopped)
  }

  @Test(
    "a bad version or migrate is refused with the file and the problem",
    arguments: [
      (#""version":0,"#, "shop.json: 'version' must be an integer of at least 1"),
      (#""version":1.5,"#, "shop.json: 'version' must be an integer of at least 1"),
      (#""version":"2","#, "shop.json: 'version' must be an integer of at least 1"),
      (#""migrate":[],"#, "shop.json: 'migrate' must be an object with 'renamed' and 'removed'"),
      (#""migrate":{"moved":{}},"#, "shop.json: 'migrate' has unknown field 'moved'"),
      (
        #""migrate":{"renamed":[]},"#,
        "shop.json: 'migrate.renamed' must be an object of old route name to new route name"
      ),
      (
        #""migrate":{"renamed":{"item":"nowhere"}},"#,
        "shop.json: 'migrate.renamed' maps 'item' to unknown route 'nowhere'"
      ),
      (
        #""migrate":{"renamed":{"item":3}},"#,
        "shop.json: 'migrate.renamed' maps 'item' to a route name, not number"
      ),
      (
        #""migrate":{"renamed":{"Item":"product"}},"#,
        "shop.json: 'migrate.renamed' key 'Item' is not a route name ([a-z][A-Za-z0-9_]*)"
      ),
      (
        #""migrate":{"removed":{"promo":"nowhere"}},"#,
        "shop.json: 'migrate.removed' replaces 'promo' with unknown route 'nowhere'"
      ),
      (
        #""migrate":{"removed":{"promo":true}},"#,
        "shop.json: 'migrate.removed' maps 'promo' to null or a route name, not boolean"
      ),
      (
        #""migrate":{"removed":{"cart":null}},"#,
        "shop.json: 'migrate.removed' names 'cart', which this version still declares"
      ),
      (
        #""migrate":{"renamed":{"item":"product"},"removed":{"item":null}},"#,
        "shop.json: 'migrate' both renames and removes route 'item'"
      ),
    ])
  func refusals(fields: String, message: String) {
    #expect(error(fields) == message)
  }

  @Test("renames may swap names that both versions declare")
  func swap() throws {
    let graph = try loadGraph(
      document(#""migrate":{"renamed":{"cart":"product","product":"cart"}},"#))
    #expect(graph.migration.fate(of: "cart", in: graph) == .shownAs("product"))
    #expect(graph.migration.fate(of: "product", in: graph) == .shownAs("cart"))
  }
}

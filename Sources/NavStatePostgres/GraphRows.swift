import NavStateEngine
import NavigationCore
import PostgresClient

/// Graph versions in `navstate_graphs`, as the JSON they were loaded from, so that any node can
/// load the sessions of any other (whatever `--graph` files it was given).
enum GraphRows {
  static func save(_ version: GraphCatalog.Version, to database: Database) throws(PostgresError) {
    try database.query(
      "INSERT INTO navstate_graphs (name, version, source) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
      [
        .text(version.graph.name), .int64(Int64(version.graph.version)), .bytes(version.source),
      ])
  }

  /// Why the database's graphs cannot be taken in.
  struct Conflict: Error, CustomStringConvertible {
    var description: String
  }

  /// Reads every version into `catalog`. One the catalog has from a graph file must be the same
  /// JSON: a graph changed without a new version would apply stored commands under other rules.
  static func load(into catalog: GraphCatalog, from database: Database, timeout: Double)
    throws(PostgresError) -> [Conflict]
  {
    let rows = try database.query(
      "SELECT name, version, source FROM navstate_graphs ORDER BY name, version", timeout: timeout)
    var conflicts: [Conflict] = []
    for row in 0..<rows.count {
      guard let name = rows.text(row, 0), let number = rows.integer(row, 1),
        let source = rows.bytes(row, 2)
      else { continue }
      let loaded = catalog.allVersions.first {
        $0.graph.name == name && $0.graph.version == Int(number)
      }
      if let loaded {
        if !loaded.source.isEmpty, loaded.source != source {
          conflicts.append(
            Conflict(
              description:
                "graph '\(name)' version \(number) differs from the one the sessions in PostgreSQL were saved under; give the changed graph a higher version"
            ))
        }
        continue
      }
      do {
        let graph = try RouteGraph.decode(source, source: "navstate_graphs \(name) v\(number)")
        catalog.restore(GraphCatalog.Version(graph: graph, source: source))
      } catch {
        conflicts.append(
          Conflict(description: "navstate_graphs holds a graph that does not load: \(error)"))
      }
    }
    return conflicts
  }
}

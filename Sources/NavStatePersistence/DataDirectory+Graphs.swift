import NavStateEngine
import NavigationCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Every graph version sessions may be on, kept beside the journal as the JSON it was loaded
/// from (`graph.NAME.vVERSION.json`), so that a restart finds the versions its sessions and
/// journal records name, whatever `--graph` files it is given then.
extension DataDirectory {
  package static func graphFileName(_ name: String, _ version: Int) -> String {
    "graph.\(name).v\(version).json"
  }

  /// Writes the versions of the catalog that are not in the directory yet.
  func saveGraphs(of store: SessionStore) throws(Failure) {
    for version in store.catalog.allVersions where !version.source.isEmpty {
      let file = path + "/" + Self.graphFileName(version.graph.name, version.graph.version)
      if try Self.readFile(file) != nil { continue }
      try Self.replace(file, with: version.source, directory: path)
    }
  }

  /// Reads the directory's graph versions into `catalog`. A version the catalog already has
  /// from a graph file or the binary must be the same JSON: a graph changed without a new
  /// version would apply the sessions' saved commands under other rules.
  func loadGraphs(into catalog: GraphCatalog) throws(Failure) {
    for file in try graphFiles() {
      guard let bytes = try Self.readFile(path + "/" + file) else { continue }
      let graph: RouteGraph
      do {
        graph = try RouteGraph.decode(bytes, source: path + "/" + file)
      } catch {
        throw Failure(description: "\(path)/\(file): \(error)")
      }
      guard file == Self.graphFileName(graph.name, graph.version) else {
        throw Failure(
          description:
            "\(path)/\(file) holds version \(graph.version) of graph '\(graph.name)', not what its name says"
        )
      }
      let loaded = catalog.allVersions.first {
        $0.graph.name == graph.name && $0.graph.version == graph.version
      }
      if let loaded, !loaded.source.isEmpty, loaded.source != bytes {
        throw Failure(
          description:
            "graph '\(graph.name)' version \(graph.version) differs from the one this data directory's sessions were saved under (\(path)/\(file)); give the changed graph a higher version"
        )
      }
      if loaded == nil { catalog.restore(GraphCatalog.Version(graph: graph, source: bytes)) }
    }
  }

  /// The names of the directory's graph files.
  private func graphFiles() throws(Failure) -> [String] {
    try fileNames(prefix: "graph.").filter { $0.hasSuffix(".json") }.sorted()
  }
}

public import NavStateEngine
import NavigationCore

#if canImport(Glibc)
  import Glibc
#endif

/// The files named on the command line: `--graph` files (besides the built-in graphs) and
/// `--backend-key-file`.
public enum StartupFiles {
  public static func load(files graphFiles: [String]) throws(StartupFailure)
    -> [GraphCatalog.Version]
  {
    var graphs: [GraphCatalog.Version]
    do {
      graphs = try BuiltInGraphs.loadWithSources().map {
        GraphCatalog.Version(graph: $0.graph, source: $0.source)
      }
    } catch {
      throw StartupFailure(status: .cannotOpenInput, message: "\(error)")
    }
    for path in graphFiles {
      let graph = try read(graphFile: path)
      // A file may bring a newer version of a graph already loaded (a built-in one, or an
      // earlier --graph file): both versions are kept, and sessions start on the newest.
      let loaded = graphs.filter { $0.graph.name == graph.graph.name }.map(\.graph.version).max()
      if let loaded, graph.graph.version <= loaded {
        throw StartupFailure(
          status: .badData,
          message:
            "--graph \(path): a graph named '\(graph.graph.name)' is already loaded at version \(loaded); a file for it needs a higher version"
        )
      }
      graphs.append(graph)
    }
    return graphs
  }

  /// One `--graph` file, read and checked.
  public static func read(graphFile path: String) throws(StartupFailure) -> GraphCatalog.Version {
    let bytes = try readFile(path)
    do {
      return GraphCatalog.Version(graph: try RouteGraph.decode(bytes, source: path), source: bytes)
    } catch {
      throw StartupFailure(status: .badData, message: "--graph \(error)")
    }
  }

  /// The whole file, or the system's reason why not (no such file, permission denied, a folder).
  /// The keys of `--backend-key-file`; a file that is not one refuses to start (65), naming
  /// the line but never the key.
  public static func backendKeys(file path: String) throws(StartupFailure) -> BackendKeys {
    let bytes = try readFile(path, option: "--backend-key-file")
    do {
      return try BackendKeys(fileContents: bytes)
    } catch {
      throw StartupFailure(status: .badData, message: "--backend-key-file \(path): \(error)")
    }
  }

  static func readFile(_ path: String, option: String = "--graph") throws(StartupFailure)
    -> [UInt8]
  {
    func failure(_ code: Int32) -> StartupFailure {
      StartupFailure(
        status: .cannotOpenInput,
        message: "\(option) \(path): cannot read the file: \(StartupFailure.reason(code))")
    }
    guard let file = fopen(path, "rb") else { throw failure(errno) }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = fread(&chunk, 1, chunk.count, file)
      if count > 0 { bytes += chunk[0..<count] }
      if count < chunk.count { break }
    }
    // Reading a folder opens fine and fails here with EISDIR.
    guard ferror(file) == 0 else { throw failure(errno) }
    return bytes
  }
}

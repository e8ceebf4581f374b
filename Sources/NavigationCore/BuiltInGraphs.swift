import Foundation

/// The graphs that ship inside the package, loaded through the same decoder as user files.
public enum BuiltInGraphs {
  public static let resourceNames = ["demo"]

  /// The package's resource folder, which SwiftPM puts beside the executable. Looked up by hand
  /// because the generated `Bundle.module` traps when the folder is missing, and a server that
  /// was copied without it should say so, not crash.
  static let bundleName = "NavState_NavigationCore.resources"

  public static func load() throws(GraphError) -> [RouteGraph] {
    var graphs: [RouteGraph] = []
    for name in resourceNames {
      let source = "built-in \(name).json"
      guard let bytes = resource(named: "\(name).json") else {
        throw GraphError(
          source: source,
          problem: "\(bundleName) is missing beside the executable (copy it with the binary)")
      }
      graphs.append(try RouteGraph.decode(bytes, source: source))
    }
    return graphs
  }

  static func resource(named file: String) -> [UInt8]? {
    let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
      .resolvingSymlinksInPath()
    let folders = [
      Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
      executable.deletingLastPathComponent(),
    ]
    for folder in folders {
      let url = folder.appendingPathComponent(bundleName).appendingPathComponent(file)
      if let data = try? Data(contentsOf: url) { return Array(data) }
    }
    return nil
  }
}

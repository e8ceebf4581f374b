import Foundation

/// The graphs that ship inside the package, loaded through the same decoder as user files.
public enum BuiltInGraphs {
  public static let resourceNames = ["demo"]

  public static func load() throws(GraphError) -> [RouteGraph] {
    var graphs: [RouteGraph] = []
    for name in resourceNames {
      let source = "built-in \(name).json"
      guard let url = Bundle.module.url(forResource: name, withExtension: "json"),
        let data = try? Data(contentsOf: url)
      else {
        throw GraphError(source: source, problem: "the resource is missing from the bundle")
      }
      graphs.append(try RouteGraph.decode(Array(data), source: source))
    }
    return graphs
  }
}

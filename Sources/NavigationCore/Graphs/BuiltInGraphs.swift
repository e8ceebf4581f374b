/// The graphs that ship inside the binary, loaded through the same decoder as user files.
///
/// Their JSON files are compiled into the binary (SwiftPM's `.embedInCode` resources), so the
/// release binary copied alone into an empty folder has them; no resource folder sits beside it.
public enum BuiltInGraphs {
  public static let resourceNames = ["demo", "zumry"]

  public static func load() throws(GraphError) -> [RouteGraph] {
    try loadWithSources().map(\.graph)
  }

  /// The graphs with the JSON each was read from (a data directory keeps every version's JSON):
  /// `demo`, and `zumry`, Zumry's login / signup / dashboard / forgot-password flow, the example
  /// of guards and redirects (docs/behaviour.md section 10): `dashboard` requires `{"authenticated": true}` and
  /// redirects to `login`.
  public static func loadWithSources() throws(GraphError) -> [(graph: RouteGraph, source: [UInt8])]
  {
    let demo = PackageResources.demo_json
    let zumry = PackageResources.zumry_json
    return [
      (try RouteGraph.decode(demo, source: "built-in demo.json"), demo),
      (try RouteGraph.decode(zumry, source: "built-in zumry.json"), zumry),
    ]
  }

  /// The `zumry` graph alone.
  public static func zumry() throws(GraphError) -> RouteGraph {
    try RouteGraph.decode(PackageResources.zumry_json, source: "built-in zumry.json")
  }
}

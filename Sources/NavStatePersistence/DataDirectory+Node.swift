extension DataDirectory {
  /// The outcome of comparing `--node` with the name the directory's sessions were issued under.
  public enum NodeClaim: Equatable, Sendable {
    /// The directory is this node's (or was new, or from before names were recorded).
    case ours
    /// The sessions in the directory have ids of another name (nil: of a server without one).
    case other(String?)
  }

  package var nodePath: String { path + "/node" }

  /// Records `node` as the name of this directory's sessions, unless another name is recorded:
  /// every id a node issued starts with its name, so the same sessions under another name would
  /// answer none of the ids their clients hold, and would expire unreached.
  public func claim(node: String?) throws(Failure) -> NodeClaim {
    let recorded = try Self.readFile(nodePath).map { bytes in
      String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
    }
    if let recorded {
      let recordedNode = recorded.isEmpty ? nil : recorded
      return recordedNode == node ? .ours : .other(recordedNode)
    }
    try Self.replace(nodePath, with: Array(((node ?? "") + "\n").utf8), directory: path)
    return .ours
  }
}

extension String {
  fileprivate func trimmingWhitespace() -> String {
    String(
      self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
  }
}

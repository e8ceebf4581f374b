import NavJSON

/// Reads a graph document's `version` and `migrate` fields. Kept apart from the route decoder:
/// the route decoder reads one version on its own, these say how it follows the previous one.
struct VersionDecoder {
  let source: String

  func fail(_ problem: String, route: String? = nil) -> GraphError {
    GraphError(source: source, route: route, problem: problem)
  }

  /// `version`: an integer of at least 1; 1 when absent, as every graph was before versions.
  func version(_ value: JSONValue?) throws(GraphError) -> Int {
    guard let value else { return 1 }
    guard let version = value.intValue, version >= 1 else {
      throw fail("'version' must be an integer of at least 1")
    }
    return version
  }

  /// `migrate: {renamed: {old: new}, removed: {old: null | "route"}}`, checked against the routes
  /// of this version (`known`): whatever a session is moved to must exist here.
  func migration(_ value: JSONValue?, known: Set<String>) throws(GraphError) -> GraphMigration {
    guard let value else { return .none }
    guard let object = value.objectValue?.withoutNulls else {
      throw fail("'migrate' must be an object with 'renamed' and 'removed'")
    }
    if let unknown = object.keys.first(where: { $0 != "renamed" && $0 != "removed" }) {
      throw fail("'migrate' has unknown field '\(unknown)'")
    }
    var migration = GraphMigration()
    if let renamed = object["renamed"] {
      guard let members = renamed.objectValue?.members else {
        throw fail("'migrate.renamed' must be an object of old route name to new route name")
      }
      for member in members {
        try checkOldName(member.key, field: "renamed")
        guard let target = member.value.stringValue else {
          throw fail(
            "'migrate.renamed' maps '\(member.key)' to a route name, not \(member.value.kindName)")
        }
        guard known.contains(target) else {
          throw fail("'migrate.renamed' maps '\(member.key)' to unknown route '\(target)'")
        }
        migration.renamed[member.key] = target
      }
    }
    if let removed = object["removed"] {
      guard let members = removed.objectValue?.members else {
        throw fail("'migrate.removed' must be an object of old route name to null or a route name")
      }
      for member in members {
        let name = member.key
        try checkOldName(name, field: "removed")
        guard migration.renamed[name] == nil else {
          throw fail("'migrate' both renames and removes route '\(name)'")
        }
        // Removing a route that this version still declares would stop screens that exist.
        guard !known.contains(name) else {
          throw fail("'migrate.removed' names '\(name)', which this version still declares")
        }
        switch member.value {
        case .null:
          migration.removed[name] = .some(nil)
        case .string(let replacement):
          guard known.contains(replacement) else {
            throw fail("'migrate.removed' replaces '\(name)' with unknown route '\(replacement)'")
          }
          migration.removed[name] = .some(replacement)
        default:
          throw fail(
            "'migrate.removed' maps '\(name)' to null or a route name, not \(member.value.kindName)"
          )
        }
      }
    }
    return migration
  }

  /// An old name must at least be a route name: anything else is a typo nothing could match.
  private func checkOldName(_ name: String, field: String) throws(GraphError) {
    let bytes = name.utf8
    guard let first = bytes.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z"),
      bytes.allSatisfy({ byte in
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
          || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
          || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
      })
    else {
      throw fail("'migrate.\(field)' key '\(name)' is not a route name ([a-z][A-Za-z0-9_]*)")
    }
  }
}

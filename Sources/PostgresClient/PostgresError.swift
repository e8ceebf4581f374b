/// Why a call to PostgreSQL failed.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
  public enum Kind: Sendable, Equatable {
    /// No connection, or it was lost.
    case unreachable
    /// No answer within the deadline: the statement may or may not have been committed.
    case timeout
    /// The server refused the statement (SQLSTATE); the connection is still usable.
    case server(String)
  }

  public var kind: Kind
  public var message: String
  public var description: String { message }

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }
}

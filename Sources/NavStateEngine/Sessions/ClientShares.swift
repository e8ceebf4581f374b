/// How many of something (sessions, open streams) each client address holds, so that no one
/// address takes more than its share.
package struct ClientShares {
  private var held: [String: Int] = [:]

  /// Takes one more for `client`, if it holds fewer than `cap`.
  package mutating func take(for client: String, cap: Int) -> Bool {
    let count = held[client, default: 0]
    guard count < cap else { return false }
    held[client] = count + 1
    return true
  }

  /// Counts one more for `client` whatever its share (what was admitted before a restart).
  package mutating func add(for client: String) {
    held[client, default: 0] += 1
  }

  package mutating func giveBack(for client: String) {
    let count = held[client, default: 1] - 1
    held[client] = count > 0 ? count : nil
  }
}

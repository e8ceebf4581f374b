import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// One server per data directory: a second one would overwrite the first one's snapshot and
/// delete its journal.
@Suite("One owner per data directory")
struct DataDirectoryOwnerTests {
  @Test(
    "a second server on a data directory in use exits 66, naming the directory and its lock, even with DIR/lock deleted",
    arguments: [false, true])
  func secondOwnerRefused(lockFileDeleted: Bool) throws {
    let path = NSTemporaryDirectory() + "navstate-owner-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = try ServerProcess(["--data-dir", path])
    let session = try TestSession(first.client)
    // The directory's own lock holds when the file that names the owner is gone.
    if lockFileDeleted { #expect(unlink(path + "/lock") == 0) }
    let started = Date()
    let second = try ProcessTests.runToExit(
      ["--port", "0", "--data-dir", path], stopAfterStart: true)
    #expect(Date().timeIntervalSince(started) < 5, "refused at once")
    #expect(second.status == 66, "\(second.errors)")
    #expect(second.errors.contains("\(path) is in use by another navstate"))
    #expect(second.errors.contains("\(path)/lock"))
    if !lockFileDeleted {
      #expect(second.errors.contains("(process \(first.process.processIdentifier))"))
    }
    #expect(!second.output.contains("listening on"))
    // The first one carries on, and its sessions come back after its own restart.
    #expect(try session.call("push", ["route": "detail", "params": ["id": 1]]).status == 200)
    #expect(first.stop() == 0)
    let third = try ServerProcess(["--data-dir", path])
    defer { third.stop() }
    let again = TestSession(client: third.client, id: session.id, token: session.token)
    #expect(try again.get().json["version"] == 2)
  }

  @Test("a crashed owner leaves no lock behind")
  func crashReleasesTheLock() throws {
    let path = NSTemporaryDirectory() + "navstate-owner-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = try ServerProcess(["--data-dir", path])
    kill(first.process.processIdentifier, SIGKILL)
    first.process.waitUntilExit()
    let second = try ServerProcess(["--data-dir", path])
    #expect(second.stop() == 0)
  }
}

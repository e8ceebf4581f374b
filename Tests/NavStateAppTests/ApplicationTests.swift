import Foundation
import Logging
import NavStateApp
import NavStateTestSupport
import Testing

/// `NavStateApplication` in this process: what it starts, in what order it stops, and what it
/// refuses, without the executable.
@Suite(.serialized) struct ApplicationTests {
  private func configuration(dataDirectory: String? = nil) throws
    -> NavStateApplication.Configuration
  {
    var configuration = NavStateApplication.Configuration()
    configuration.port = 0
    configuration.graphs = try StartupFiles.load(files: [])
    configuration.dataDirectory = dataDirectory
    configuration.snapshotInterval = 0
    return configuration
  }

  private let logger = Logger(label: "navstate.test") { _ in SwiftLogNoOpLogHandler() }

  private func temporaryDirectory() -> String {
    NSTemporaryDirectory() + "navstate-app-\(UUID().uuidString)"
  }

  @Test func itServesOnceStartedAndStopsWithALastSnapshotThatTheNextStartRestores() throws {
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let first = NavStateApplication(
      configuration: try configuration(dataDirectory: directory), logger: logger)
    try first.start()
    let port = try #require(first.port)
    let client = HTTPTestClient(port: UInt16(port))
    #expect(try client.request("GET", "/healthz").status == 200)
    let created = try client.request(
      "POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
      body: Array(#"{"graph":"zumry"}"#.utf8))
    #expect(created.status == 201)
    let location = try #require(created.header("Location"))
    let token = try #require(
      String(decoding: created.body, as: UTF8.self).split(separator: "\"").drop { $0 != "token" }
        .dropFirst(2).first.map(String.init))
    first.stop()
    #expect(first.port == nil)
    // Stopped: the port answers no more, and the snapshot is on disk.
    #expect(throws: (any Error).self) { try client.request("GET", "/healthz", timeout: 1) }
    #expect(FileManager.default.fileExists(atPath: directory + "/snapshot"))

    let second = NavStateApplication(
      configuration: try configuration(dataDirectory: directory), logger: logger)
    try second.start()
    defer { second.stop() }
    let again = HTTPTestClient(port: UInt16(try #require(second.port)))
    let read = try again.request("GET", location, headers: [("Authorization", "Bearer \(token)")])
    #expect(read.status == 200, "\(String(decoding: read.body, as: UTF8.self))")
  }

  @Test func aSecondApplicationOnTheSameDataDirectoryIsRefused() throws {
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let owner = NavStateApplication(
      configuration: try configuration(dataDirectory: directory), logger: logger)
    try owner.start()
    defer { owner.stop() }
    let second = NavStateApplication(
      configuration: try configuration(dataDirectory: directory), logger: logger)
    do {
      try second.start()
      second.stop()
      Issue.record("a second owner started")
    } catch {
      #expect(error.status.rawValue == 66, "\(error.message)")
      #expect(error.message.contains(directory), "\(error.message)")
    }
  }

  @Test func aDefaultGraphThatIsNotLoadedIsAUsageError() throws {
    var configuration = try configuration()
    configuration.defaultGraph = "shop"
    let application = NavStateApplication(configuration: configuration, logger: logger)
    do {
      try application.start()
      application.stop()
      Issue.record("started without its default graph")
    } catch {
      #expect(error.status.rawValue == 64)
      #expect(error.message.contains("demo, zumry"), "\(error.message)")
    }
  }
}

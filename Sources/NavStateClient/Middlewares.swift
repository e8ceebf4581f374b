import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends the session's bearer token (or the backend's key) with every call but an app's
/// creation.
struct BearerToken: ClientMiddleware {
  let token: String?

  func intercept(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
    next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
  ) async throws -> (HTTPResponse, HTTPBody?) {
    var request = request
    if let token { request.headerFields[.authorization] = "Bearer \(token)" }
    return try await next(request, body, baseURL)
  }
}

/// Turns every problem document into a thrown ``NavStateError``, so that each operation's code
/// only deals with its success and every refusal arrives the same way, whatever its status.
struct ProblemsAsErrors: ClientMiddleware {
  func intercept(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
    next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
  ) async throws -> (HTTPResponse, HTTPBody?) {
    let (response, responseBody) = try await next(request, body, baseURL)
    guard response.status.code >= 400 else { return (response, responseBody) }
    var bytes = Data()
    if let responseBody { bytes = try await Data(collecting: responseBody, upTo: 1 << 20) }
    guard let problem = try? JSONDecoder().decode(Problem.self, from: bytes) else {
      throw NavStateError(
        status: response.status.code, code: .unexpectedResponse,
        detail: String(decoding: bytes.prefix(200), as: UTF8.self))
    }
    throw NavStateError(
      status: problem.status, code: .init(rawValue: problem.code), title: problem.title,
      detail: problem.detail, version: problem.version, opIndex: problem.opIndex,
      coordinator: problem.coordinator, reason: problem.reason, route: problem.route,
      missing: problem.missing)
  }

  private struct Problem: Decodable {
    var status: Int
    var code: String
    var title: String
    var detail: String
    var version: Int?
    var opIndex: Int?
    var coordinator: String?
    var reason: String?
    var route: String?
    var missing: [String]?
  }
}

extension NavStateError {
  /// What a call threw, as the one error type: the generated client wraps middleware errors.
  static func from(_ error: any Error) -> NavStateError {
    if let error = error as? NavStateError { return error }
    if let error = error as? ClientError {
      if let underlying = error.underlyingError as? NavStateError { return underlying }
      return NavStateError(
        status: error.response.map { $0.status.code } ?? 0, code: .transport,
        detail: "\(error.underlyingError)")
    }
    return NavStateError(status: 0, code: .transport, detail: "\(error)")
  }
}

import Testing

@testable import NavStateAPI

/// `GET .../events` streams only when `Accept` prefers the event stream over JSON.
@Suite struct AcceptedMediaTypesTests {
  @Test(
    "the stream is chosen only when preferred",
    arguments: [
      ("text/event-stream", true),
      ("text/event-stream, application/json;q=0.5", true),
      ("TEXT/Event-Stream", true),
      ("text/*", true),
      ("application/json, text/event-stream, application/problem+json", false),
      ("application/json, text/event-stream", false),
      ("application/json;q=0.9, text/event-stream", true),
      ("*/*", false),
      ("text/event-stream;q=0, */*", false),
      ("application/*, text/event-stream;q=0.8", false),
      ("application/json", false),
      ("", false),
      ("garbage", false),
    ])
  func preference(header: String, streams: Bool) {
    #expect(AcceptedMediaTypes(header).prefersEventStream == streams, "\(header)")
  }

  @Test func noHeaderAcceptsAnythingAndGetsJSON() {
    #expect(AcceptedMediaTypes(nil).prefersEventStream == false)
    #expect(AcceptedMediaTypes(nil).quality(of: "application", "json") == 1)
  }
}

import NavJSON
import Testing

@testable import NavigationCore

@Suite("Guards and redirects")
struct RedirectTests {
  @Test("a closed route without redirect is refused, naming the route and the missing keys")
  func closedWithoutRedirect() throws {
    var session = try GuardedSession()
    let refusal = session.refuse(.push(route("admin")), .requirementNotMet)
    #expect(refusal?.details == .requirementNotMet(route: "admin", missing: ["roles"]))
    #expect(refusal?.kind == .forbidden)
    session.refuse(.present(route("admin"), style: .sheet), .requirementNotMet)
    session.refuse(.replace(route("admin")), .requirementNotMet)
    session.refuse(.setPath([entry("admin", .root)]), .requirementNotMet)
    session.refuse(.deepLink("/home/admin"), .requirementNotMet)
    session.refuse(
      .batch([.push(detail(1)), .push(route("admin"))]), .requirementNotMet, opIndex: 1)
    // Open once the context says so.
    try session.apply(.setContext(["roles": .strings(["owner"])]))
    try session.apply(.push(route("admin")))
    #expect(session.routes == ["home", "admin"])
  }

  @Test("a creation at a closed root without redirect is refused")
  func closedRootWithoutRedirect() {
    do {
      _ = try NavigationState.start(graph: gatedGraph, root: route("admin"))
      Issue.record("started at a closed root")
    } catch {
      #expect(error.code == .requirementNotMet)
    }
  }

  @Test("a push of a closed route starts its redirect instead and keeps the push pending")
  func pushRedirects() throws {
    var session = try GuardedSession()
    #expect(
      try session.apply(.push(route("account")))
        == ["started c2 signin push under c1", "redirected account to signin c2"])
    #expect(
      session.state.pendingRequest
        == PendingRequest(
          op: .push, route: "account", coordinator: c(2),
          action: .start(route: "account", params: [:], presentation: .push, parent: c(1))))
    // The user signs in: the redirect goes, the push is applied, in one version.
    let version = session.state.version
    #expect(
      try session.apply(.setContext(signedIn)) == [
        "stopped c2 signin resolved", #"context {"signedIn":true}"#, "applied account",
        "started c3 account push under c1",
      ])
    #expect(session.state.version == version + 1)
    #expect(session.state.pendingRequest == nil)
    #expect(session.routes == ["home", "account"])
  }

  @Test("a present redirects with the redirect's own presentation, and applies as asked")
  func presentRedirects() throws {
    var session = try GuardedSession()
    #expect(
      try session.apply(.present(route("billing"), style: .fullScreenCover))
        == ["started c2 upgrade sheet under c1", "redirected billing to upgrade c2"])
    // Half of what billing requires: still closed, the request still waits.
    #expect(try session.apply(.setContext(signedIn)) == [#"context {"signedIn":true}"#])
    #expect(session.state.pendingRequest?.coordinator == c(2))
    #expect(
      try session.apply(.setContext(["signedIn": .bool(true), "plan": .string("pro")])) == [
        "stopped c2 upgrade resolved", #"context {"plan":"pro","signedIn":true}"#,
        "applied billing", "started c3 billing fullScreenCover under c1",
      ])
  }

  @Test("a replace by a closed route puts the redirect in the replaced one's place")
  func replaceRedirects() throws {
    var session = try GuardedSession()
    try session.apply(.push(detail(1)))
    #expect(
      try session.apply(.replace(route("account"))) == [
        "stopped c2 detail replace", "started c3 signin push under c1",
        "redirected account to signin c3",
      ])
    #expect(
      try session.apply(.setContext(signedIn)) == [
        "stopped c3 signin resolved", #"context {"signedIn":true}"#, "applied account",
        "started c4 account push under c1",
      ])
    // At the root, the redirect becomes the root.
    var root = try GuardedSession()
    #expect(
      try root.apply(.replace(route("vault"))) == [
        "stopped c1 home replace", "started c2 signin root under -",
        "redirected vault to signin c2",
      ])
    try root.apply(.setContext(signedIn))
    #expect(root.routes == ["vault", "vaultHome"])
  }

  @Test("a creation at a closed root starts at its redirect and is applied once open")
  func creationRedirects() throws {
    var session = try GuardedSession(graph: zumryGraph)
    #expect(
      session.startEvents == ["started c1 login root under -", "redirected dashboard to login c1"])
    #expect(session.state.pendingRequest?.op == .create)
    #expect(
      try session.apply(.setContext(["authenticated": .bool(true)])) == [
        "stopped c1 login resolved", #"context {"authenticated":true}"#, "applied dashboard",
        "started c2 dashboard root under -",
      ])
    // Already open at creation: no redirect.
    let open = try GuardedSession(graph: zumryGraph, context: ["authenticated": .bool(true)])
    #expect(open.startEvents == ["started c1 dashboard root under -"])
  }

  @Test("a newer redirect replaces the pending request")
  func newerRedirectReplaces() throws {
    var session = try GuardedSession()
    try session.apply(.push(route("account")))
    #expect(
      try session.apply(.push(route("vault"))) == [
        "started c3 signin push under c2", "dropped account replaced",
        "redirected vault to signin c3",
      ])
    #expect(session.state.pendingRequest?.route == "vault")
  }

  @Test("leaving the redirect screen cancels the pending request", arguments: [0, 1, 2, 3])
  func leavingCancels(way: Int) throws {
    var session = try GuardedSession()
    try session.apply(.push(detail(1)))
    try session.apply(.present(route("billing"), style: .sheet))  // upgrade, c3
    #expect(session.state.pendingRequest?.coordinator == c(3))
    let leave: Command = [.dismiss(), .back(), .teardown(c(3)), .dismiss(.all)][way]
    let events = try session.apply(leave)
    #expect(events == ["stopped c3 upgrade dismiss", "dropped billing cancelled"] || way == 2)
    #expect(events.last == "dropped billing cancelled")
    #expect(session.state.pendingRequest == nil)
    // Signing in later opens nothing.
    #expect(
      try session.apply(.setContext(["signedIn": .bool(true), "plan": .string("team")])).count
        == 1)
  }

  @Test("a pop of the redirect cancels, and so does a reset of the path it is on")
  func popAndResetCancel() throws {
    var session = try GuardedSession()
    try session.apply(.push(route("account")))
    #expect(try session.apply(.pop()) == ["stopped c2 signin pop", "dropped account cancelled"])
    try session.apply(.push(route("account")))
    #expect(
      try session.apply(.setPath([entry("home", .root)])) == [
        "stopped c3 signin reset", "dropped account cancelled",
      ])
  }

  @Test("a pending request that no longer applies is dropped with the code it fails with")
  func invalidPendingDropped() throws {
    // The vault (a container of 3) does not fit where its redirect (1) did.
    var session = try GuardedSession(limits: NavigationLimits(maxCoordinators: 3))
    try session.apply(.push(route("vault")))
    #expect(session.routes == ["home", "signin"])
    #expect(
      try session.apply(.setContext(signedIn)) == [
        "stopped c2 signin resolved", #"context {"signedIn":true}"#,
        "dropped vault invalid coordinator_limit",
      ])
    #expect(session.state.pendingRequest == nil)
    #expect(session.routes == ["home"])
  }

  @Test("a deep link across a closed route shows its open prefix and the redirect on top")
  func deepLinkAcrossGuard() throws {
    var session = try GuardedSession()
    let url = "/home/detail/3/account/detail/4"
    #expect(
      try session.apply(.deepLink(url)) == [
        "started c2 detail push under c1", "started c3 signin push under c2",
        "redirected account to signin c3",
      ])
    #expect(session.state.pendingRequest?.url == url)
    #expect(session.state.pendingRequest?.op == .deeplink)
    // Once open, the whole link is followed, keeping what it shares with the screen.
    #expect(
      try session.apply(.setContext(signedIn)) == [
        "stopped c3 signin resolved", #"context {"signedIn":true}"#, "applied account",
        "started c4 account push under c2", "started c5 detail push under c4",
      ])
    #expect(session.routes == ["home", "detail", "account", "detail"])
  }

  @Test("a link through two guards redirects twice, then lands")
  func deepLinkThroughTwoGuards() throws {
    var session = try GuardedSession(graph: zumryGraph)  // c1 login, pending creation
    #expect(
      try session.apply(.deepLink("myapp://dashboard/checkout/42")) == [
        "dropped dashboard replaced", "redirected dashboard to login c1",
      ])
    #expect(
      try session.apply(.setContext(["authenticated": .bool(true)])) == [
        "stopped c1 login resolved", #"context {"authenticated":true}"#, "applied dashboard",
        "started c2 dashboard root under -", "started c3 verifyEmail sheet under c2",
        "redirected checkout to verifyEmail c3",
      ])
    #expect(
      try session.apply(
        .setContext(["authenticated": .bool(true), "emailVerified": .bool(true)])) == [
          "stopped c3 verifyEmail resolved",
          #"context {"authenticated":true,"emailVerified":true}"#, "applied checkout",
          "started c4 checkout push under c2",
        ])
    #expect(session.routes == ["dashboard", "checkout"])
  }

  @Test("PUT state with a closed entry redirects as a deep link does, and batches redirect too")
  func setPathAndBatch() throws {
    var session = try GuardedSession()
    #expect(
      try session.apply(.setPath([entry("home", .root), entry("account", .push)])) == [
        "started c2 signin push under c1", "redirected account to signin c2",
      ])
    #expect(session.state.pendingRequest?.op == .state)
    #expect(
      try session.apply(.batch([.pop(), .push(detail(1)), .push(route("account"))])) == [
        "stopped c2 signin pop", "dropped account cancelled", "started c3 detail push under c1",
        "started c4 signin push under c3", "redirected account to signin c4",
      ])
  }

  @Test("a logout stops what is closed now, with its subtree, whatever leave guards say")
  func logoutStops() throws {
    var session = try GuardedSession(context: signedIn)
    try session.apply(.push(route("account")))
    try session.apply(.push(detail(1)))
    try session.apply(.setLeaveGuard(c(3), reason: "unsaved"))
    #expect(
      try session.apply(.setContext([:])) == [
        "stopped c3 detail requirementLost", "stopped c2 account requirementLost", "context {}",
      ])
    #expect(session.routes == ["home"])
    #expect(session.state.leaveGuards.isEmpty)
  }

  @Test("a closed root restarts the tree at its redirect, else at the graph's root")
  func closedRootRestarts() throws {
    var vault = try GuardedSession(root: "vault", context: signedIn)
    #expect(
      try vault.apply(.setContext([:])) == [
        "stopped c3 vaultKeys requirementLost", "stopped c2 vaultHome requirementLost",
        "stopped c1 vault requirementLost", "context {}", "started c4 signin root under -",
      ])
    var admin = try GuardedSession(root: "admin", context: ["roles": .strings(["admin"])])
    try admin.apply(.push(detail(1)))
    #expect(
      try admin.apply(.setContext(["roles": .strings([])])) == [
        "stopped c2 detail requirementLost", "stopped c1 admin requirementLost",
        #"context {"roles":[]}"#, "started c3 home root under -",
      ])
  }

  @Test("setting the same context again changes nothing; a context change bumps once")
  func contextChanges() throws {
    var session = try GuardedSession(context: signedIn)
    let version = session.state.version
    #expect(try session.apply(.setContext(signedIn)) == [])
    #expect(session.state.version == version)
    #expect(try session.apply(.setContext([:])) == ["context {}"])
    #expect(session.state.version == version + 1)
    // On a graph without guards a context is kept all the same.
    var demo = try Session()
    #expect(try demo.events(.setContext(["a": .int(1)])) == [#"context {"a":1}"#])
    #expect(demo.state.context == ["a": .int(1)])
  }

  @Test("allowed lists a closed route only with a redirect, and names the redirect")
  func affordances() throws {
    let session = try GuardedSession()
    let allowed = session.state.allowed
    #expect(allowed.push.contains("account") && allowed.push.contains("vault"))
    #expect(!allowed.push.contains("admin"))
    #expect(allowed.sheet.contains("billing") && !allowed.sheet.contains("admin"))
    #expect(allowed.replace == ["home", "signin", "vault"])
    #expect(allowed.redirects == ["account": "signin", "vault": "signin", "billing": "upgrade"])
    let open = try GuardedSession(context: ["signedIn": .bool(true), "roles": .strings(["admin"])])
    #expect(open.state.allowed.push.contains("admin"))
    #expect(open.state.allowed.redirects == ["billing": "upgrade"])
    // A graph without guards lists no redirects.
    #expect(try Session().state.allowed.redirects.isEmpty)
  }
}

@Suite("The Zumry flow")
struct ZumryScenarioTests {
  static let authenticated: SessionContext = ["authenticated": .bool(true)]

  @Test("sign up from the login a creation redirected to, land on the dashboard, log out")
  func signUpAndLogOut() throws {
    var session = try GuardedSession(graph: zumryGraph)
    try session.apply(.present(route("signup"), style: .fullScreenCover))  // c2 over login c1
    #expect(session.routes == ["login", "signup"])
    // The backend says the user is in: the whole login flow goes, the dashboard is the root.
    #expect(
      try session.apply(.setContext(Self.authenticated)) == [
        "stopped c2 signup resolved", "stopped c1 login resolved",
        #"context {"authenticated":true}"#, "applied dashboard",
        "started c3 dashboard root under -",
      ])
    // Profile needs a role and has no redirect: refused while the user has none.
    session.refuse(.present(route("profile"), style: .sheet), .requirementNotMet)
    try session.apply(.setContext(["authenticated": .bool(true), "roles": .strings(["member"])]))
    try session.apply(.present(route("profile"), style: .sheet))  // c4
    try session.apply(.setLeaveGuard(c(4), reason: "unsaved profile"))
    // A logout on another device closes everything here, the guarded sheet included.
    #expect(
      try session.apply(.setContext([:])) == [
        "stopped c4 profile requirementLost", "stopped c3 dashboard requirementLost",
        "context {}", "started c5 login root under -",
      ])
    #expect(session.state.leaveGuards.isEmpty)
  }

  @Test("a checkout link before the e-mail is verified waits on verifyEmail; leaving it cancels")
  func checkoutWaitsForVerification() throws {
    var session = try GuardedSession(graph: zumryGraph, context: Self.authenticated)
    #expect(
      try session.apply(.deepLink("https://zumry.example/dashboard/checkout/42")) == [
        "started c2 verifyEmail sheet under c1", "redirected checkout to verifyEmail c2",
      ])
    #expect(session.state.allowed.dismiss)
    #expect(
      try session.apply(.dismiss()) == [
        "stopped c2 verifyEmail dismiss", "dropped checkout cancelled",
      ])
    let allowed = session.state.allowed
    #expect(allowed.push == ["checkout"] && allowed.redirects == ["checkout": "verifyEmail"])
  }
}

// A scenario through the Java client that openapi-generator makes from openapi.yaml (`java`,
// library `native`: java.net.http and Jackson; package org.openapitools.client): a session
// created, pushed (an int param exact beyond 2^53) and popped, a typed 409, the JSON event list,
// a backend merge patch of a context, and the typed round trip of a graph: GET the built-in graphs
// `demo` and `zumry`, send each back unedited but for its name through PUT (the answer of GET
// converted to the request type by the client's own ObjectMapper, as an app would), GET the copy
// and check that it means the same graph (the two documents compared after normalising: a `next`
// left out or null is "any route", `[]` "none"; tabs and requires left out, null or empty are
// none; and so on), a dry run decoded as the typed MigrationReport, and history and time travel:
// the history (versions, ops, by: getHistory's JSON read as the generated History, see run), a page
// of it, the breadcrumbs, the state at an older version (`at`) and a restore of it (the typed
// session.restored event). Run by
// Tests/generated-clients/run with NAVSTATE_URL and NAVSTATE_BACKEND_KEY; exits 1 on a failure.
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.openapitools.client.ApiClient;
import org.openapitools.client.ApiException;
import org.openapitools.client.ApiResponse;
import org.openapitools.client.api.EventsApi;
import org.openapitools.client.api.GraphsApi;
import org.openapitools.client.api.HistoryApi;
import org.openapitools.client.api.NavigationApi;
import org.openapitools.client.api.SessionsApi;
import org.openapitools.client.model.Breadcrumb;
import org.openapitools.client.model.CoordinatorStoppedEvent;
import org.openapitools.client.model.CreateSessionRequest;
import org.openapitools.client.model.CreatedSession;
import org.openapitools.client.model.Event;
import org.openapitools.client.model.EventList;
import org.openapitools.client.model.Graph;
import org.openapitools.client.model.GraphInput;
import org.openapitools.client.model.History;
import org.openapitools.client.model.HistoryEntry;
import org.openapitools.client.model.MigrationReport;
import org.openapitools.client.model.MutationResult;
import org.openapitools.client.model.PathItem;
import org.openapitools.client.model.PopRequest;
import org.openapitools.client.model.Problem;
import org.openapitools.client.model.PushRequest;
import org.openapitools.client.model.RestoreRequest;
import org.openapitools.client.model.RouteRequest;
import org.openapitools.client.model.SessionRestoredEvent;
import org.openapitools.client.model.SessionState;

public final class JavaScenario {
  static final String URL = System.getenv("NAVSTATE_URL");
  static final String BACKEND_KEY = System.getenv("NAVSTATE_BACKEND_KEY");
  static final List<String> failures = new ArrayList<>();

  static void check(boolean condition, String what) {
    System.out.println((condition ? "ok   " : "FAIL ") + what);
    if (!condition) failures.add(what);
  }

  /** A client of the generated code, sending `token` as the bearer token. */
  static ApiClient client(String token) {
    ApiClient made = new ApiClient();
    made.updateBaseUri(URL);
    // A bound on every answer: an endless event stream where JSON was asked for fails, not hangs.
    made.setReadTimeout(Duration.ofSeconds(10));
    if (token != null) made.setRequestInterceptor(b -> b.header("Authorization", "Bearer " + token));
    return made;
  }

  /** The refusal a call ends in, as the generated code reports it; null when it succeeded. */
  interface Call { void run() throws ApiException; }

  static ApiException refusal(Call call) {
    try {
      call.run();
    } catch (ApiException error) {
      return error;
    }
    return null;
  }

  static Problem problem(ApiException error, ObjectMapper mapper) {
    try {
      return mapper.readValue(error.getResponseBody(), Problem.class);
    } catch (Exception unreadable) {
      return null;
    }
  }

  /** The server's own bytes for GET /v1/graphs/{name}, not the client's reading of them. */
  static JsonNode rawGraph(String name, ObjectMapper mapper) throws Exception {
    HttpResponse<String> answer = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(URL + "/v1/graphs/" + name)).timeout(Duration.ofSeconds(10))
            .header("Accept", "application/json").build(),
        HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 200) throw new IllegalStateException("GET " + name + ": " + answer.statusCode());
    return mapper.readTree(answer.body());
  }

  static boolean absent(JsonNode node) {
    return node == null || node.isNull() || node.isMissingNode();
  }

  static boolean empty(JsonNode node) {
    return absent(node) || (node.isContainerNode() && node.size() == 0);
  }

  static ArrayNode sortedStrings(JsonNode list) {
    ArrayNode sorted = JsonNodeFactory.instance.arrayNode();
    TreeSet<String> names = new TreeSet<>();
    list.forEach(item -> names.add(item.asText()));
    names.forEach(sorted::add);
    return sorted;
  }

  /**
   * What a graph document means, in one canonical form: its name left out (the copy has another),
   * each member's default filled in, `next` null for "any route" and a sorted list otherwise,
   * tabs, requires and redirect null when there are none, each requirement a list of accepted
   * values, a param's `required` false and its `default` null when left out.
   */
  static JsonNode meaning(JsonNode graph) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.put("version", absent(graph.get("version")) ? 1 : graph.get("version").asInt());
    out.set("root", graph.get("root"));
    Map<String, JsonNode> routes = new TreeMap<>();
    for (JsonNode route : graph.get("routes")) {
      ObjectNode r = JsonNodeFactory.instance.objectNode();
      r.set("path", route.get("path"));
      ObjectNode params = JsonNodeFactory.instance.objectNode();
      Map<String, JsonNode> byName = new TreeMap<>();
      if (!absent(route.get("params"))) {
        Iterator<Map.Entry<String, JsonNode>> fields = route.get("params").fields();
        while (fields.hasNext()) {
          Map.Entry<String, JsonNode> field = fields.next();
          ObjectNode p = JsonNodeFactory.instance.objectNode();
          p.set("type", field.getValue().get("type"));
          JsonNode required = field.getValue().get("required");
          p.put("required", !absent(required) && required.asBoolean());
          JsonNode value = field.getValue().get("default");
          p.set("default", absent(value) ? JsonNodeFactory.instance.nullNode() : value);
          byName.put(field.getKey(), p);
        }
      }
      byName.forEach(params::set);
      r.set("params", params);
      r.set("presentation", route.get("presentation"));
      r.set("presentations", sortedStrings(route.get("presentations")));
      JsonNode next = route.get("next");
      r.set("next", absent(next) ? JsonNodeFactory.instance.nullNode() : sortedStrings(next));
      JsonNode tabs = route.get("tabs");
      r.set("tabs", empty(tabs) ? JsonNodeFactory.instance.nullNode() : tabs);
      JsonNode root = route.get("root");
      r.put("root", !absent(root) && root.asBoolean());
      JsonNode requires = route.get("requires");
      if (empty(requires)) {
        r.set("requires", JsonNodeFactory.instance.nullNode());
      } else {
        ObjectNode accepted = JsonNodeFactory.instance.objectNode();
        Map<String, JsonNode> byKey = new TreeMap<>();
        requires.fields().forEachRemaining(field -> {
          JsonNode value = field.getValue();
          ArrayNode values = JsonNodeFactory.instance.arrayNode();
          if (value.isArray()) values.addAll((ArrayNode) value); else values.add(value);
          byKey.put(field.getKey(), values);
        });
        byKey.forEach(accepted::set);
        r.set("requires", accepted);
      }
      JsonNode redirect = route.get("redirect");
      r.set("redirect", absent(redirect) ? JsonNodeFactory.instance.nullNode() : redirect);
      routes.put(route.get("name").asText(), r);
    }
    ObjectNode byRoute = JsonNodeFactory.instance.objectNode();
    routes.forEach(byRoute::set);
    out.set("routes", byRoute);
    return out;
  }

  /** The routes whose meaning differs, for a failure's message. */
  static String differences(JsonNode a, JsonNode b) {
    List<String> routes = new ArrayList<>();
    a.get("routes").fieldNames().forEachRemaining(name -> {
      if (!a.get("routes").get(name).equals(b.get("routes").get(name))) {
        routes.add(name + ": " + a.get("routes").get(name) + " became " + b.get("routes").get(name));
      }
    });
    if (!a.get("root").equals(b.get("root"))) routes.add("root " + a.get("root") + " became " + b.get("root"));
    if (a.get("routes").size() != b.get("routes").size()) routes.add("the routes differ in number");
    return String.join("; ", routes);
  }

  /** GET `name` → PUT it back unedited as `copy` → GET `copy`: the same meaning throughout. */
  static void roundTrip(String name, String copy, GraphsApi graphs, GraphsApi backend, ObjectMapper mapper)
      throws Exception {
    Graph original = graphs.getGraph(name, null);
    check(original != null && name.equals(original.getName()) && !original.getRoutes().isEmpty(),
        "GET /v1/graphs/" + name + " reads as the typed Graph");
    // The typed answer, converted to the request type by the client's ObjectMapper: what an app does
    // to send back what it read. Only the name changes (the path names the copy).
    GraphInput input = mapper.convertValue(original, GraphInput.class);
    input.setName(copy);
    Graph loaded;
    try {
      loaded = backend.loadGraph(copy, input);
    } catch (ApiException error) {
      check(false, "PUT /v1/graphs/" + copy + " of the typed GET answer is accepted (got " + error.getCode()
          + ": " + error.getResponseBody() + "; sent " + mapper.writeValueAsString(input) + ")");
      return;
    }
    check(loaded != null && copy.equals(loaded.getName()), "PUT /v1/graphs/" + copy + " answers the typed Graph (201)");
    JsonNode before = meaning(rawGraph(name, mapper));
    JsonNode after = meaning(rawGraph(copy, mapper));
    check(before.equals(after), "GET " + copy + " means what GET " + name + " meant"
        + (before.equals(after) ? "" : ": " + differences(before, after)));
    JsonNode answered = meaning(mapper.valueToTree(loaded));
    check(before.equals(answered), "the PUT answer, as the typed client read it, means the same"
        + (before.equals(answered) ? "" : ": " + differences(before, answered)));
  }

  /** The routes and params of a path, for comparing paths. */
  static List<String> steps(List<PathItem> path, boolean withIds) {
    List<String> steps = new ArrayList<>();
    path.forEach(item -> steps.add((withIds ? item.getId() + " " : "") + item.getRoute() + " " + item.getParams()));
    return steps;
  }

  static MutationResult pushDetail(ApiClient by, String sid, int id) throws ApiException {
    return new NavigationApi(by).push(sid, null, null, null,
        new PushRequest().route("detail").params(new LinkedHashMap<>(Map.of("id", id))));
  }

  /**
   * History and time travel, on a session of its own: three pushes (the last by the backend), the
   * history (each entry's version, op and by), a page of it (after, limit), the breadcrumbs, the
   * state at version 2 (`at`), a restore of that version (a MutationResult whose events end in the
   * typed session.restored {from}), the restore's own entry, and a version not reached (a 400).
   * getHistory answers `oneOf: [History, Breadcrumbs]`, an object or an array; the generator's Java
   * for a oneOf with an array member does not compile, so run maps that answer to Jackson's
   * JsonNode (--schema-mappings), and the tree is read here as the generated History, or a List of
   * the generated Breadcrumb, with the client's own ObjectMapper.
   */
  static void timeTravel(ApiClient anonymous, ApiClient backendClient, ObjectMapper mapper) throws Exception {
    CreatedSession travel = new SessionsApi(anonymous).createSession(
        new CreateSessionRequest().root(new RouteRequest().route("master")));
    String sid = travel.getSession().getId();
    ApiClient traveller = client(travel.getToken());
    HistoryApi history = new HistoryApi(traveller);
    SessionsApi sessions = new SessionsApi(traveller);
    List<MutationResult> pushes = List.of(pushDetail(traveller, sid, 1), pushDetail(traveller, sid, 2),
        pushDetail(backendClient, sid, 3));
    List<Integer> pushed = new ArrayList<>();
    pushes.forEach(answer -> pushed.add(answer.getVersion()));
    check(pushed.equals(List.of(2, 3, 4)), "three pushes make versions 2 to 4 (" + pushed + ")");

    JsonNode tree = history.getHistory(sid, null, null, null);
    History all = mapper.treeToValue(tree, History.class);
    check(tree.isObject() && all.getVersion() == 4 && all.getOldest() == 1,
        "GET history reads as the generated History at version 4, oldest 1");
    List<Integer> versions = new ArrayList<>();
    List<String> ops = new ArrayList<>();
    List<String> by = new ArrayList<>();
    List<String> pushedValues = new ArrayList<>();
    List<Date> times = new ArrayList<>();
    for (HistoryEntry entry : all.getEntries()) {
      versions.add(entry.getVersion());
      ops.add(entry.getOp().getOp());
      by.add(entry.getBy().getValue());
      times.add(entry.getAt());
      if ("push".equals(entry.getOp().getOp())) {
        pushedValues.add(entry.getOp().getAdditionalProperty("route") + " " + entry.getOp().getAdditionalProperty("params"));
      }
    }
    check(versions.equals(List.of(1, 2, 3, 4)), "its entries are versions 1 to 4 (" + versions + ")");
    check(ops.equals(List.of("create", "push", "push", "push")), "their ops: create, then three pushes (" + ops + ")");
    check(by.equals(List.of("client", "client", "client", "backend")), "by client, client, client, backend (" + by + ")");
    check(pushedValues.equals(List.of("detail {id=1}", "detail {id=2}", "detail {id=3}")),
        "each push entry carries its route and params (" + pushedValues + ")");
    boolean ordered = !times.contains(null);
    for (int i = 1; ordered && i < times.size(); i++) ordered = !times.get(i).before(times.get(i - 1));
    check(ordered, "each entry's `at` reads as a Date, in order" + (ordered ? "" : " (" + times + ")"));

    History page = mapper.treeToValue(history.getHistory(sid, 1L, 2, null), History.class);
    List<Integer> paged = new ArrayList<>();
    page.getEntries().forEach(entry -> paged.add(entry.getVersion()));
    check(paged.equals(List.of(2, 3)) && page.getVersion() == 4, "history after=1 limit=2 is versions 2 and 3 (" + paged + ")");

    JsonNode crumbsTree = history.getHistory(sid, null, null, "breadcrumbs");
    List<Breadcrumb> crumbs = mapper.convertValue(crumbsTree, new TypeReference<List<Breadcrumb>>() {});
    List<String> moves = new ArrayList<>();
    crumbs.forEach(crumb -> moves.add(crumb.getData().getFrom() + " -> " + crumb.getData().getTo()));
    check(crumbsTree.isArray() && moves.equals(List.of(" -> /master", "/master -> /master/detail")),
        "format=breadcrumbs reads as a List of the generated Breadcrumb, one per change of the active route (" + moves + ")");

    ApiResponse<SessionState> old = sessions.getSessionWithHttpInfo(sid, 2L);
    List<String> etag = new ArrayList<>();
    old.getHeaders().forEach((name, values) -> { if (name.equalsIgnoreCase("ETag")) etag.addAll(values); });
    check(old.getData().getVersion() == 2 && etag.equals(List.of("\"2\""))
        && steps(old.getData().getPath(), false).equals(List.of("master {}", "detail {id=1}")),
        "GET ?at=2 is the typed state at version 2 (ETag " + etag + "): " + steps(old.getData().getPath(), false));

    MutationResult restored = history.restore(sid, new RestoreRequest().version(2), null, null, null);
    check(restored.getVersion() == 5 && restored.getSession().getVersion() == 5,
        "restore of version 2 is a MutationResult, one version on (" + restored.getVersion() + ")");
    check(steps(restored.getSession().getPath(), true).equals(steps(old.getData().getPath(), true)),
        "the restored path is version 2's, coordinator ids included (" + steps(restored.getSession().getPath(), true) + ")");
    List<Event> events = restored.getEvents();
    List<String> stopped = new ArrayList<>();
    for (Event event : events.subList(0, Math.max(0, events.size() - 1))) {
      if (event.getActualInstance() instanceof CoordinatorStoppedEvent) {
        CoordinatorStoppedEvent stop = event.getCoordinatorStoppedEvent();
        stopped.add(stop.getCoordinator() + " " + stop.getReason().getValue());
      }
    }
    check(events.size() == 3 && stopped.equals(List.of(pushes.get(2).getSession().getActive() + " reset",
        pushes.get(1).getSession().getActive() + " reset")),
        "the two later pushes stop, the top first (reason reset) (" + stopped + ")");
    Object last = events.isEmpty() ? null : events.get(events.size() - 1).getActualInstance();
    check(last instanceof SessionRestoredEvent && ((SessionRestoredEvent) last).getFrom() == 2
        && ((SessionRestoredEvent) last).getVersion() == 5
        && "session.restored".equals(((SessionRestoredEvent) last).getType().getValue()),
        "the last event is the typed session.restored {from: 2}"
        + (last instanceof SessionRestoredEvent ? "" : " (" + last + ")"));

    History later = mapper.treeToValue(history.getHistory(sid, 4L, null, null), History.class);
    HistoryEntry entry = later.getEntries().size() == 1 ? later.getEntries().get(0) : null;
    check(entry != null && entry.getVersion() == 5 && "restore".equals(entry.getOp().getOp())
        && Integer.valueOf(2).equals(entry.getOp().getAdditionalProperty("version"))
        && "client".equals(entry.getBy().getValue()),
        "the restore is history entry 5, restore {version: 2}");

    ApiException error = refusal(() -> sessions.getSession(sid, 99L));
    Problem refused = error == null ? null : problem(error, mapper);
    check(error != null && error.getCode() == 400 && refused != null && "invalid_version".equals(refused.getCode()),
        "?at= a version not reached is a 400 invalid_version problem");
    sessions.deleteSession(sid, null, null);
    error = refusal(() -> sessions.getSession(sid, null));
    check(error != null && (error.getCode() == 404 || error.getCode() == 410), "the time-travel session ends");
  }

  public static void main(String[] arguments) throws Exception {
    ApiClient anonymous = client(null);
    ObjectMapper mapper = anonymous.getObjectMapper();

    CreatedSession created = new SessionsApi(anonymous).createSession(
        new CreateSessionRequest().root(new RouteRequest().route("master")));
    check(created.getSession().getPath().get(0).getRoute().equals("master"), "creation answers the typed state");
    String sid = created.getSession().getId();
    ApiClient user = client(created.getToken());
    NavigationApi navigation = new NavigationApi(user);
    SessionsApi sessions = new SessionsApi(user);

    long big = 9_007_199_254_740_993L;
    MutationResult pushed = navigation.push(sid, "\"1\"", null, null,
        new PushRequest().route("detail").params(new LinkedHashMap<>(Map.of("id", big))));
    List<PathItem> path = pushed.getSession().getPath();
    Object id = path.get(path.size() - 1).getParams().get("id");
    check(pushed.getVersion() == 2 && id instanceof Number && ((Number) id).longValue() == big
        && !(id instanceof Double), "a push at the current version (If-Match) is applied, its int param exact (" + id + ")");
    MutationResult popped = navigation.pop(sid, null, null, null, new PopRequest());
    check(popped.getSession().getPath().size() == 1, "pop answers the state at the root");
    ApiException error = refusal(() -> navigation.pop(sid, null, null, null, new PopRequest()));
    Problem refused = error == null ? null : problem(error, mapper);
    check(error != null && error.getCode() == 409 && refused != null && "nothing_to_pop".equals(refused.getCode()),
        "pop at the root is a 409 nothing_to_pop problem");

    // listEvents declares its JSON and its event-stream answers, so the generated client sends
    // `Accept: application/json, text/event-stream, application/problem+json`: the server must
    // answer the JSON list (an event stream would never end). java.net.http's timeout ends at the
    // head, not the body, so the call is bounded here.
    EventList page = null;
    FutureTask<EventList> listing = new FutureTask<>(() -> new EventsApi(user).listEvents(sid, 0L));
    Thread lister = new Thread(listing);
    lister.setDaemon(true);
    lister.start();
    try {
      page = listing.get(10, TimeUnit.SECONDS);
    } catch (TimeoutException endless) {
      check(false, "listEvents answers the JSON list to the generated client (no answer in 10 s: the server"
          + " answered its Accept: application/json, text/event-stream with the endless stream)");
    } catch (ExecutionException failed) {
      check(false, "listEvents answers the JSON list to the generated client (" + failed.getCause() + ")");
    }
    if (page != null) {
      List<Long> seqs = new ArrayList<>();
      page.getEvents().forEach(event -> seqs.add(((Number) mapper.valueToTree(event).get("seq").numberValue()).longValue()));
      List<Long> expected = new ArrayList<>();
      for (long seq = 1; seq <= page.getLastSeq(); seq++) expected.add(seq);
      check(seqs.equals(expected) && seqs.size() == 3, "the JSON event list reads every event in order (" + seqs + ")");
    }

    // The backend: a context set at creation, then changed by a merge patch (a null removes a key).
    // The generated ApiClient's ObjectMapper leaves out null members (NON_NULL), Map values
    // included, so as generated it cannot send a removal: {"plan": null} goes out as {}. A Java app
    // keeps null map values (and nothing else) with the content inclusion below, as
    // openapi.yaml's patchContext says.
    ApiClient backendClient = client(BACKEND_KEY);
    ObjectMapper keepsNullValues = backendClient.getObjectMapper();
    keepsNullValues.setDefaultPropertyInclusion(
        JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.ALWAYS));
    backendClient.setObjectMapper(keepsNullValues);
    Map<String, Object> context = new LinkedHashMap<>();
    context.put("authenticated", false);
    context.put("plan", "free");
    CreatedSession guarded = new SessionsApi(backendClient).createSession(
        new CreateSessionRequest().graph("zumry").context(context));
    check(guarded.getSession().getPending() != null && "login".equals(guarded.getSession().getPath().get(0).getRoute()),
        "a zumry session signed out waits at login");
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put("authenticated", true);
    patch.put("plan", null);
    MutationResult patched = new SessionsApi(backendClient).patchContext(
        guarded.getSession().getId(), patch, null, null, null);
    check(patched.getSession().getContext().equals(Map.of("authenticated", true))
        && "dashboard".equals(patched.getSession().getPath().get(0).getRoute()),
        "PATCH context (merge-patch+json) removes a key, sets one, and the pending dashboard opens (context "
        + patched.getSession().getContext() + ", path " + patched.getSession().getPath().get(0).getRoute() + ")");

    // Typed graph round trips, under scratch names.
    GraphsApi graphs = new GraphsApi(anonymous);
    GraphsApi backend = new GraphsApi(backendClient);
    roundTrip("demo", "demo_java", graphs, backend, mapper);
    roundTrip("zumry", "zumry_java", graphs, backend, mapper);

    // A dry run: demo at version 2, the same routes. The session above is on demo 1, so at least one
    // session is behind; with nothing changed, every one of them stays as it is. Nothing is loaded.
    GraphInput next = mapper.convertValue(graphs.getGraph("demo", null), GraphInput.class);
    next.setVersion(2);
    MigrationReport report = backend.dryRunGraph("demo", next);
    check(report.getSessions() >= 1 && report.getUnchanged().equals(report.getSessions())
        && report.getMigrated() == 0 && report.getRestarted() == 0 && report.getStopped().isEmpty(),
        "a dry run of demo 2 decodes as the typed MigrationReport, every session unchanged (" + report.getSessions() + ")");
    check(graphs.getGraph("demo", null).getVersion() == 1, "the dry run loaded nothing");
    next.setVersion(1);
    error = refusal(() -> backend.dryRunGraph("demo", next));
    refused = error == null ? null : problem(error, mapper);
    check(error != null && error.getCode() == 409 && refused != null && "graph_version_exists".equals(refused.getCode()),
        "a dry run of a loaded version is a 409 graph_version_exists problem");

    timeTravel(anonymous, backendClient, mapper);

    sessions.deleteSession(sid, null, null);
    new SessionsApi(backendClient).deleteSession(guarded.getSession().getId(), null, null);
    error = refusal(() -> sessions.getSession(sid, null));
    check(error != null && (error.getCode() == 404 || error.getCode() == 410), "an ended session is refused");

    System.out.println(failures.isEmpty() ? "java client scenario: all passed" : failures.size() + " failed");
    System.exit(failures.isEmpty() ? 0 : 1);
  }
}

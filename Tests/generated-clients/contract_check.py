"""openapi-core's judgement of a scenario's traffic: every request a generated client sent and
every answer it got, validated against openapi.yaml (parameters, security, bodies, declared and
required headers, status codes), plus a check that every example in openapi.yaml fits its schema.

The scenarios record their traffic as `Exchange`s (from the HTTP library under the generated
client, so nothing is lost or added by the generated code) and call `report`, which prints each
failure and returns how many there were. An answer whose body is an endless event stream is
recorded with the part of it that was read.

Before judging the traffic, `report` makes sure the judge can fail: answers and requests broken on
purpose (a mutation answer without `events`, a state without `allowed`, an event stream (where
one was read) without its required `Cache-Control`, a pop body with an unknown member, a string where a boolean is
required, an undeclared status, a stream event of an unknown type) must each be refused, or the
run fails. The event stream's body is declared a string; its events are checked one by one against
the Event and SessionState schemas (`stream_errors`), whichever operation answered it (`listEvents`
answers one to a request that accepts it). Merge-patch bodies (`application/merge-patch+json`) are
read as JSON.

The document itself is checked too (`shape_errors`): each operation has one answer type per status
class (a 2xx answer with no body, like a 204, is no other type), so that a client that makes one
return type per operation reads every answer.

`graph_meaning` is the scenarios' yardstick for a graph round trip: what a graph document means,
with every default filled in.
"""
import copy
import json
from dataclasses import dataclass, field, replace
from urllib.parse import parse_qs, urlsplit

import yaml
from jsonschema_path import SchemaPath
from openapi_core import Config, OpenAPI
from openapi_core.datatypes import RequestParameters
from openapi_core.deserializing.media_types.util import json_loads, plain_loads
from openapi_schema_validator import OAS31Validator
from werkzeug.datastructures import Headers, ImmutableMultiDict


@dataclass
class Exchange:
    method: str
    url: str
    request_headers: list
    request_body: bytes | None
    status: int = 0
    response_headers: list = field(default_factory=list)
    response_body: bytes | None = None

    def header(self, name):
        return Headers(self.response_headers).get(name)

    @property
    def json(self):
        return json.loads(self.response_body)


class _Request:
    """An exchange's request as openapi-core reads one (its Request protocol)."""

    def __init__(self, exchange):
        parts = urlsplit(exchange.url)
        self.host_url = f"{parts.scheme}://{parts.netloc}"
        self.path = parts.path
        self.method = exchange.method.lower()
        self.body = exchange.request_body
        headers = Headers(exchange.request_headers)
        self.content_type = (headers.get("Content-Type") or "").lower()
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(parse_qs(parts.query)), header=headers,
            cookie=ImmutableMultiDict())


class _Response:
    """An exchange's answer as openapi-core reads one (its Response protocol)."""

    def __init__(self, exchange):
        self.status_code = exchange.status
        self.headers = Headers(exchange.response_headers)
        self.content_type = (self.headers.get("Content-Type") or "").lower()
        self.data = exchange.response_body


def _why(error):
    """The error and its causes (openapi-core wraps the schema's own errors)."""
    parts = []
    while error is not None and len(parts) < 4:
        text = " ".join(str(error).split())[:300]
        details = getattr(error, "schema_errors", None)
        if details:
            text += ": " + "; ".join(
                f"{'/'.join(map(str, e.absolute_path)) or '(body)'}: "
                f"{' '.join(e.message.split())[:160]}"
                for e in list(details)[:3])
        parts.append(text)
        error = error.__cause__ or getattr(error, "__context__", None)
    return " <- ".join(parts)


def request_errors(openapi, exchange):
    try:
        openapi.validate_request(_Request(exchange))
        return None
    except Exception as error:  # openapi-core raises a family of its own errors
        return _why(error)


def response_errors(openapi, exchange):
    try:
        openapi.validate_response(_Request(exchange), _Response(exchange))
        return None
    except Exception as error:
        return _why(error)


def sse_events(text):
    """The events of a text/event-stream body, as dicts of their fields (comments dropped)."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        if fields:
            events.append(fields)
    return events


def stream_errors(spec, exchange):
    """openapi.yaml declares the stream's body as a string; its events are checked here: each
    `data` is an Event (for `reset`, a SessionState), its `event` the Event's type and its `id`
    the Event's seq; a `presence` message's `data` is a Presence, and it has no `id`."""
    def validator(name):
        return OAS31Validator({"$ref": f"#/components/schemas/{name}",
                               "components": spec["components"]})

    failures = []
    events = sse_events(exchange.response_body.decode())
    if not events or "retry" not in events[0]:
        failures.append("the stream does not start with retry")
    for fields in events:
        if "data" not in fields:
            continue
        try:
            data = json.loads(fields["data"])
        except ValueError as error:
            failures.append(f"event {fields.get('id')}: data is not JSON ({error})")
            continue
        kind = {"reset": "SessionState", "presence": "Presence"}.get(fields.get("event"), "Event")
        if kind == "Presence" and "id" in fields:
            failures.append(f"a presence message has an id ({fields['id']})")
        for problem in list(validator(kind).iter_errors(data))[:1]:
            failures.append(f"event {fields.get('id')} ({fields.get('event')}): data is no {kind}: "
                            f"{' '.join(problem.message.split())[:200]}")
        if kind == "Event" and (fields.get("event") != data.get("type")
                                or fields.get("id") != str(data.get("seq"))):
            failures.append(f"event {fields.get('id')}: its event and id are not its type and seq")
    return failures


def shape_errors(spec):
    """Operations with more than one answer type in a status class: within 2xx (and within each
    other class), every answer that has a body has the same schema for each media type, and the
    same media types."""
    failures = []
    components = spec.get("components", {}).get("responses", {})
    for path, item in spec.get("paths", {}).items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            by_class = {}
            for status, answer in operation["responses"].items():
                if "$ref" in answer:
                    answer = components[answer["$ref"].rsplit("/", 1)[1]]
                content = answer.get("content")
                if not content:
                    continue
                shape = json.dumps({media: body.get("schema") for media, body in content.items()},
                                   sort_keys=True)
                by_class.setdefault(str(status)[0], {}).setdefault(shape, []).append(str(status))
            for kind, shapes in sorted(by_class.items()):
                if len(shapes) > 1:
                    failures.append(f"{method.upper()} {path}: {kind}xx answers of "
                                    f"{len(shapes)} types ({'; '.join(', '.join(s) for s in shapes.values())})")
    return failures


def graph_meaning(graph):
    """What a graph document (a Graph as answered, or a GraphInput as sent) means: its name left
    out (a copy has another), every default filled in. `next` left out or null is any route
    (None), a list the set of routes (sorted; `[]` is none); tabs, requires and redirect left out,
    null or empty are none (None); a requirement is the list of accepted values; a param's
    `required` defaults to false and its `default` to none (None)."""
    routes = {}
    for route in graph["routes"]:
        params = {}
        for name, declaration in sorted((route.get("params") or {}).items()):
            params[name] = {"type": declaration["type"],
                            "required": bool(declaration.get("required") or False),
                            "default": declaration.get("default")}
        requires = route.get("requires") or None
        if requires is not None:
            requires = {key: value if isinstance(value, list) else [value]
                        for key, value in sorted(requires.items())}
        next_routes = route.get("next")
        routes[route["name"]] = {
            "path": route.get("path"),
            "params": params,
            "presentation": route.get("presentation"),
            "presentations": sorted(route.get("presentations") or []),
            "next": None if next_routes is None else sorted(next_routes),
            "tabs": route.get("tabs") or None,
            "root": bool(route.get("root") or False),
            "requires": requires,
            "redirect": route.get("redirect"),
        }
    return {"version": graph.get("version") or 1, "root": graph["root"], "routes": routes}


def meaning_differences(before, after):
    """Which routes' meanings differ, for a failure's message."""
    notes = [f"{name}: {before['routes'].get(name)} became {after['routes'].get(name)}"
             for name in sorted(set(before["routes"]) | set(after["routes"]))
             if before["routes"].get(name) != after["routes"].get(name)]
    if before["root"] != after["root"] or before["version"] != after["version"]:
        notes.append(f"root/version {before['root']}/{before['version']} became "
                     f"{after['root']}/{after['version']}")
    return "; ".join(notes)


def example_errors(spec):
    """Every `example` and `examples` value in the document against the schema beside it."""
    failures = []

    def walk(node, where):
        if isinstance(node, dict):
            if isinstance(node.get("schema"), dict) and ("example" in node or "examples" in node):
                values = [("example", node["example"])] if "example" in node else []
                values += [(name, example.get("value"))
                           for name, example in (node.get("examples") or {}).items()]
                schema = dict(node["schema"], components=spec["components"])
                for name, value in values:
                    problems = list(OAS31Validator(schema).iter_errors(value))
                    if problems:
                        failures.append(f"{where} ({name}): {problems[0].message[:200]}")
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}[{index}]")

    walk(spec, "")
    return failures


def _judge_can_fail(openapi, spec, exchanges):
    """Answers and requests broken on purpose must be refused; returns what was not."""
    missed = []

    def broken(kind, exchange, what):
        errors = (request_errors if kind == "request" else response_errors)(openapi, exchange)
        if errors is None:
            missed.append(what)

    def with_body(exchange, change):
        body = copy.deepcopy(exchange.json)
        change(body)
        return replace(exchange, response_body=json.dumps(body).encode())

    full = next((x for x in exchanges if x.status == 200 and x.method == "POST"
                 and x.header("Content-Type") == "application/json"
                 and "session" in x.json), None)
    stream = next((x for x in exchanges
                   if (x.header("Content-Type") or "").startswith("text/event-stream")), None)
    if full is None:
        missed.append("(no full mutation answer was recorded to break)")
    else:
        broken("response", with_body(full, lambda body: body.pop("events")),
               "a mutation answer without events")
        broken("response", with_body(full, lambda body: body["session"].pop("allowed")),
               "a state without allowed")
        broken("response", with_body(full, lambda body: body["session"]["allowed"].update(
            pop="42")), "a string where allowed.pop is a boolean")
        broken("response", replace(full, status=299), "an undeclared status")
        pop_url = full.url.rsplit("/", 1)[0] + "/pop"
        broken("request", replace(full, url=pop_url, request_body=b'{"count": 1, "everything": 1}'),
               "a pop body with an unknown member")
    patch = next((x for x in exchanges if x.method == "PATCH" and x.status == 200), None)
    if patch is not None:
        broken("request", replace(patch, request_body=b'["authenticated"]'),
               "a merge patch of a context that is no object")
    if stream is not None:
        headers = [(k, v) for k, v in stream.response_headers if k.lower() != "cache-control"]
        broken("response", replace(stream, response_headers=headers),
               "an event stream without its required Cache-Control")
        text = stream.response_body.decode()
        wrong = text.replace('"type":"coordinator.', '"type":"coordinator.x', 1)
        if wrong == text or not stream_errors(spec, replace(stream, response_body=wrong.encode())):
            missed.append("an event stream whose event has an unknown type")
    return missed


def report(spec_path, exchanges, needed_statuses=(), label="scenario", stream=False):
    """Validates every exchange; prints failures; returns their number (0: all conform).
    `needed_statuses` must each have been answered, and with `stream` an event stream too."""
    spec = yaml.safe_load(open(spec_path))
    # openapi-core reads bodies of media types it does not know as bytes: problem documents are
    # JSON, and the event stream is text (its schema is a string).
    # A merge patch is JSON too: without its deserializer, openapi-core would hand the schema bytes.
    openapi = OpenAPI(SchemaPath.from_dict(spec), config=Config(extra_media_type_deserializers={
        "application/problem+json": json_loads, "application/merge-patch+json": json_loads,
        "text/event-stream": plain_loads}))
    failures = []
    for failure in example_errors(spec):
        failures.append(f"example does not fit its schema: {failure}")
    for failure in shape_errors(spec):
        failures.append(f"more than one answer type: {failure}")
    for missed in _judge_can_fail(openapi, spec, exchanges):
        failures.append(f"openapi-core accepted what it must refuse: {missed}")
    for exchange in exchanges:
        where = f"{exchange.method} {urlsplit(exchange.url).path} -> {exchange.status}"
        errors = request_errors(openapi, exchange)
        if errors:
            failures.append(f"request {where}: {errors}")
        errors = response_errors(openapi, exchange)
        if errors:
            failures.append(f"answer {where}: {errors}")
    seen = sorted({exchange.status for exchange in exchanges})
    for status in needed_statuses:
        if status not in seen:
            failures.append(f"the scenario never got a {status} (saw {seen})")
    streams = [x for x in exchanges
               if (x.header("Content-Type") or "").startswith("text/event-stream")]
    if stream and not streams:
        failures.append("the scenario never opened an event stream")
    for exchange in streams:
        failures += [f"event stream: {problem}" for problem in stream_errors(spec, exchange)]
        if stream and not any(fields.get("event") not in (None, "reset", "presence")
                              for fields in sse_events(exchange.response_body.decode())):
            failures.append("the event stream was read without a live event")
    for failure in failures:
        print(f"FAIL openapi-core: {failure}")
    print(f"openapi-core ({label}): {len(exchanges)} requests and answers validated "
          f"(statuses {', '.join(map(str, seen))}), {len(failures)} failures")
    return len(failures)

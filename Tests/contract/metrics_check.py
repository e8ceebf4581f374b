"""Checks a Prometheus text exposition as `promtool check metrics` does, and more: it must parse
(prometheus_client's parser), every metric family must have HELP text and a TYPE, each once and
before its samples, and promtool's lint rules must hold (counters end in `_total` and nothing else
does; `_count`, `_sum` and `_bucket` only on histograms and summaries; snake_case names; base
units). The families docs/running.md documents (its Metrics section) must all be there.

Usage: metrics_check.py EXPOSITION_FILE [EXPECTED_FAMILY ...]; exits 1 on a problem. Before
judging the file it shows that it can fail: expositions broken on purpose must be refused.
"""
import re
import sys

from prometheus_client.parser import text_string_to_metric_families

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
# promtool's lint (prometheus/client_golang testutil/promlint) refuses these unit words.
NON_BASE_UNITS = ["milliseconds", "microseconds", "nanoseconds", "minutes", "hours", "days",
                  "kilobytes", "megabytes", "gigabytes", "kibibytes", "mebibytes", "gibibytes",
                  "bits", "percent", "celsius", "fahrenheit"]


def problems(text, expected=()):
    found = []
    try:
        list(text_string_to_metric_families(text))
    except Exception as error:  # the parser raises ValueError and others on bad input
        found.append(f"the exposition does not parse: {error}")
    helps, types, sampled = {}, {}, set()
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            word, rest = line[2:6], line[7:]
            name, _, value = rest.partition(" ")
            table = helps if word == "HELP" else types
            if name in table:
                found.append(f"line {number}: a second {word} for {name}")
            if name in sampled:
                found.append(f"line {number}: {word} for {name} after its samples")
            table[name] = value.strip()
            continue
        if not line or line.startswith("#"):
            continue
        sample = NAME.match(line).group(0)
        family = sample
        for suffix in ("_bucket", "_sum", "_count"):
            base = sample[: -len(suffix)]
            if sample.endswith(suffix) and types.get(base) in ("histogram", "summary"):
                family = base
        sampled.add(family)
        if family not in types:
            found.append(f"line {number}: {sample} has no TYPE")
    for family in sorted(set(types) | sampled):
        kind = types.get(family)
        if not helps.get(family):
            found.append(f"{family} no help text")
        if kind == "counter" and not family.endswith("_total"):
            found.append(f"{family} counter metrics should have \"_total\" suffix")
        if kind != "counter" and family.endswith("_total"):
            found.append(f"{family} non-counter metrics should not have \"_total\" suffix")
        if kind not in ("histogram", "summary") and re.search(r"_(count|sum|bucket)$", family):
            found.append(f"{family} non-histogram and non-summary metrics should not have "
                         f"\"{family.rsplit('_', 1)[1]}\" suffix")
        if family != family.lower():
            found.append(f"{family} metric names should be written in 'snake_case' not 'camelCase'")
        for unit in NON_BASE_UNITS:
            if f"_{unit}" in family:
                found.append(f"{family} use base unit instead of \"{unit}\"")
    for family in expected:
        if family not in types:
            found.append(f"{family} is documented but not exported")
    return found


BROKEN = {
    "a family without HELP": "# TYPE a_total counter\na_total 1\n",
    "a counter without _total": "# HELP a An a.\n# TYPE a counter\na 1\n",
    "a gauge named like a counter": "# HELP a_total An a.\n# TYPE a_total gauge\na_total 1\n",
    "a sample without TYPE": "# HELP a An a.\na 1\n",
    "a non-base unit": "# HELP a_milliseconds An a.\n# TYPE a_milliseconds gauge\na_milliseconds 1\n",
    "a second HELP": "# HELP a An a.\n# HELP a An a.\n# TYPE a gauge\na 1\n",
    "a malformed sample": "# HELP a An a.\n# TYPE a gauge\na{b=\"c} 1\n",
}

if __name__ == "__main__":
    missed = [what for what, text in BROKEN.items() if not problems(text)]
    good = "# HELP a_seconds An a.\n# TYPE a_seconds histogram\n" \
        "a_seconds_bucket{le=\"+Inf\"} 1\na_seconds_sum 0.1\na_seconds_count 1\n"
    if missed or problems(good):
        print(f"the check itself is wrong: missed {missed}, refused a good exposition: "
              f"{problems(good)}")
        sys.exit(1)
    text = open(sys.argv[1]).read()
    found = problems(text, sys.argv[2:])
    for problem in found:
        print(f"FAIL {problem}")
    families = len(set(re.findall(r"^# TYPE (\S+)", text, re.M)))
    samples = len([line for line in text.split("\n") if line and not line.startswith("#")])
    print(f"metrics: {families} families, {samples} samples, {len(found)} problems "
          f"(and {len(BROKEN)} broken expositions refused)")
    sys.exit(1 if found else 0)

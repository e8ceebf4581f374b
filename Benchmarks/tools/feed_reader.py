#!/usr/bin/env python3
"""Follows /v1/feed/stream and measures how far behind the writers it is.

Usage: feed_reader.py URL KEY EXPECTED_FILE SECONDS [CURSOR]

Reads items until SECONDS pass, or until it has as many as EXPECTED_FILE says (a number the
benchmark writes once the load is over). With CURSOR it starts after it (Last-Event-ID), else at
the oldest item kept. It reads what has arrived in blocks, so that it keeps up with a server
sending 100,000 items a second: it checks every item's cursor (none missed or doubled, numbers
rising) and, for the newest item of each block, the lag: the time the block was read minus the
item's `at` (both from this machine's clock, `at` in milliseconds). Prints one JSON line: items,
distinct cursors, whether they rose strictly, the last cursor, and the lag's p50, p99 and max in
milliseconds over the blocks.
"""
import http.client
import json
import os
import re
import sys
import time
import urllib.parse

ID = re.compile(rb"^id: [^\n]*-(\d+)$", re.M)
AT = re.compile(rb'"at":"\d{4}-\d\d-\d\dT(\d\d):(\d\d):(\d\d)\.(\d{3})Z"')


def main():
    url, key, expected_file, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    cursor = sys.argv[5] if len(sys.argv) > 5 else ""
    headers = {"Authorization": "Bearer " + key}
    if cursor:
        headers["Last-Event-ID"] = cursor
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    connection.request("GET", "/v1/feed/stream", headers=headers)
    response = connection.getresponse()
    assert response.status == 200, response.status
    deadline = time.time() + seconds
    items, last, rising, distinct = 0, -1, True, 0
    lags = []
    expected = None
    pending = b""
    while time.time() < deadline:
        block = response.read1(1 << 20)
        if not block:
            break
        now = time.time() % 86400
        pending += block
        cut = pending.rfind(b"\n\n") + 2
        whole, pending = pending[:cut], pending[cut:]
        numbers = [int(n) for n in ID.findall(whole)]
        if numbers:
            rising = rising and numbers[0] > last and all(a < b for a, b in zip(numbers, numbers[1:]))
            distinct += len(set(numbers))
            last = numbers[-1]
            items += len(numbers)
            cursor = whole[whole.rfind(b"\nid: ") + 5:].split(b"\n", 1)[0].decode() if whole.rfind(b"\nid: ") >= 0 else cursor
            times = AT.findall(whole[-2048:])
            if times:
                h, m, s, ms = (int(x) for x in times[-1])
                lags.append((now - (h * 3600 + m * 60 + s + ms / 1000)) * 1000)
        if expected is None and os.path.exists(expected_file):
            text = open(expected_file).read().strip()
            expected = int(text) if text else None
        if expected is not None and items >= expected:
            break
    lags.sort()
    pick = lambda q: round(lags[min(len(lags) - 1, int(q * len(lags)))], 1) if lags else None
    print(json.dumps({
        "items": items, "distinct": distinct, "rising": rising, "last": cursor,
        "lag_p50_ms": pick(0.5), "lag_p99_ms": pick(0.99),
        "lag_max_ms": round(lags[-1], 1) if lags else None,
    }))


if __name__ == "__main__":
    main()

"""Fixtures: the live server (started by `run`) and headless Chromium windows."""
import json
import os
import subprocess
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

BASE = os.environ["NAVSTATE_URL"]
# A key of the app's backend (`run` starts the server with it): sets a session's context.
BACKEND_KEY = os.environ.get("NAVSTATE_BACKEND_KEY")


def make_browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 "--window-size=1440,960", "--disable-gpu", "--hide-scrollbars",
                 "--force-device-scale-factor=1", "--lang=en-US"):
        options.add_argument(flag)
    # The performance log shows every request the page makes (URLs and headers).
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    # Explicit paths: Selenium Manager must not try to download a driver.
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(10)
    return driver


def quit_checking_the_console(driver):
    """Quits, then fails the test if the page logged a script error (a CSP refusal, an uncaught
    exception). Refused operations show up as network errors: those are expected."""
    try:
        errors = [entry for entry in driver.get_log("browser")
                  if entry["level"] == "SEVERE" and entry["source"] != "network"]
    finally:
        driver.quit()
    assert not errors, f"the page logged errors: {errors}"


@pytest.fixture
def browser():
    driver = make_browser()
    yield driver
    quit_checking_the_console(driver)


@pytest.fixture
def second_browser():
    driver = make_browser()
    yield driver
    quit_checking_the_console(driver)


def call(method, path, token=None, body=None):
    """A direct HTTP call, as curl would make it."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{BASE}{path}", data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=5) as response:
        text = response.read()
        return json.loads(text) if text else None


def start_server(*arguments):
    """Another navstate (the one `run` tests) on a free port with `arguments`, e.g. `--graph
    FILE`; returns (process, base URL). Stop it with `stop_server`."""
    binary = os.environ["NAVSTATE_BINARY"]
    process = subprocess.Popen(["timeout", "-k", "5", "300", binary, "--port", "0",
                                "--log-level", "error", *arguments],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline().strip()
    if not line.startswith("listening on http://"):
        process.kill()
        raise AssertionError(f"navstate did not start: {line} {process.stderr.read()}")
    return process, line.removeprefix("listening on ")


def stop_server(process):
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()

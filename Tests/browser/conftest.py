"""Fixtures: the live server (started by `run`) and headless Chromium windows."""
import json
import os
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

BASE = os.environ["NAVSTATE_URL"]


def make_browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 "--window-size=1400,1000", "--disable-gpu"):
        options.add_argument(flag)
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(options=options, service=service)


@pytest.fixture
def browser():
    driver = make_browser()
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


@pytest.fixture
def second_browser():
    driver = make_browser()
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


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

#!/usr/bin/env python3
"""The dashboard at /report in a real browser: Chromium driven by Selenium (chromium-driver).

    dashboard_test.py BASE_URL [SCREENSHOT_DIR]

BASE_URL is a running `alstats serve --no-auth` whose store holds the events of .ci/dashboard (traffic of the
last days, a source host that broke this week, fields carrying markup). Checks, each against `/api/report` of
the same view:
- the figures of the default view (7 days, compared with the 7 before) are the API's, the alert shows first;
- clicking a row adds its filter (the URL and a chip say so) and the figures are the API's with that filter;
  removing the chip restores them;
- the period picker moves the window;
- events posted while the page is open show within the refresh interval, without a reload;
- with JavaScript disabled, the row links still filter;
- hostile field values show as text and none of their payloads runs, also after a refresh swapped them in;
- a hosted link's page shows its install path, and a tap on a hosted page's App Store button copies the page's URL
  with its click token to the clipboard (docs/install.md) and is counted by the store hop.
Exits 1 on the first failure, with what was expected.
"""
import json
import sys
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE = sys.argv[1].rstrip("/")
SHOTS = sys.argv[2] if len(sys.argv) > 2 else None
REFRESH_BOUND = 45  # seconds: the page refreshes every 30 s


def fail(message):
    print(f"dashboard: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def api(query):
    with urllib.request.urlopen(f"{BASE}/api/report?{query}") as answer:
        return json.load(answer)


def browser(javascript=True, width=1200, height=2400):
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                     f"--window-size={width},{height}"]:
        options.add_argument(argument)
    if not javascript:
        options.add_argument("--blink-settings=scriptEnabled=false")
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))


def number(driver, element_id):
    text = driver.find_element(By.ID, element_id).text
    return int(text.replace(",", "")) if text.replace(",", "").isdigit() else text


def view_query(driver):
    """The /api/report query of the page's view: the page says it in data-api while it is live."""
    url = urllib.parse.urlparse(driver.current_url)
    parameters = dict(urllib.parse.parse_qsl(url.query))
    parameters.setdefault("period", "7d")
    if parameters.get("compare") != "none":
        parameters["compare"] = "previous"
    return urllib.parse.urlencode(parameters)


def same_figures(driver, what):
    report = api(view_query(driver))
    expected = {
        "total-events": report["totals"]["events"],
        "total-nav-in": report["totals"]["by_name"]["al_nav_in"],
        "total-nav-out": report["navigation"]["attempts"],
        "total-ref-back-out": report["back_navigation"]["attempts"],
    }
    for element_id, value in expected.items():
        shown = number(driver, element_id)
        if shown != value:
            fail(f"{what}: #{element_id} shows {shown!r}, /api/report?{view_query(driver)} says {value}")
    return report


def alerts_shown(driver):
    """The causes on the page: the items of the alerts' own list (an item holds the alerts it explains)."""
    return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#alerts > ul > li")]


def check_default_view(driver):
    driver.get(f"{BASE}/report")
    report = same_figures(driver, "the default view")
    if not report.get("alerts"):
        fail("the data has a source host that broke this week, but /api/report?compare=previous has no alert")
    shown = alerts_shown(driver)
    if not shown or "shop.example.com" not in shown[0]:
        fail(f"the first alert on the page should name shop.example.com, the page shows {shown}")
    # One alert per cause: the page lists the API's causes, each with the alerts it explains inside its item.
    if len(shown) != len(report["alerts"]):
        fail(f"the page shows {len(shown)} causes, /api/report has {len(report['alerts'])}: {shown}")
    for cause, item in zip(report["alerts"], driver.find_elements(By.CSS_SELECTOR, "#alerts > ul > li")):
        nested = item.find_elements(By.CSS_SELECTOR, "ul.explained > li")
        if len(nested) != len(cause["explains"]):
            fail(f"the alert on {cause['value']} explains {len(cause['explains'])} in the API, "
                 f"{len(nested)} under it on the page")
    if not report["alerts"][0]["explains"]:
        fail("shop.example.com sends every ref: the refs and all should be listed under it")
    main = driver.find_element(By.TAG_NAME, "main")
    first = main.find_element(By.XPATH, "./*[self::section or self::figure][1]")
    if first.get_attribute("id") != "alerts":
        fail(f"the alerts should come first in <main>, the first section is #{first.get_attribute('id')}")
    if SHOTS:
        driver.save_screenshot(f"{SHOTS}/dashboard.png")
    print(f"dashboard: the default view shows the API's figures and {len(shown)} alert(s), first")


def check_filter_and_chip(driver):
    driver.get(f"{BASE}/report")
    before = same_figures(driver, "before filtering")
    link = driver.find_element(By.CSS_SELECTOR, "#fig-ref-categories-table a.filter")
    ref = link.text
    link.click()
    WebDriverWait(driver, 10).until(lambda d: "ref=" in d.current_url)
    parameters = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(driver.current_url).query))
    if parameters.get("ref") != ref:
        fail(f"clicking the ref row {ref!r} should filter to it, the URL is {driver.current_url}")
    chips = driver.find_elements(By.CSS_SELECTOR, ".chips a.chip")
    if len(chips) != 1 or ref not in chips[0].text:
        fail(f"one chip naming {ref!r} should show, there are {[c.text for c in chips]}")
    filtered = same_figures(driver, f"filtered to ref {ref!r}")
    if filtered["totals"]["events"] >= before["totals"]["events"]:
        fail("the filter should leave fewer events than the unfiltered view")
    chips[0].click()
    WebDriverWait(driver, 10).until(lambda d: "ref=" not in d.current_url)
    after = same_figures(driver, "after removing the chip")
    if after["totals"] != before["totals"]:
        fail("removing the chip should restore the unfiltered figures")
    print(f"dashboard: clicking ref {ref!r} filters to the API's figures; removing its chip restores them")


def check_period_picker(driver):
    driver.get(f"{BASE}/report")
    week = driver.find_element(By.ID, "window").text
    driver.find_element(By.LINK_TEXT, "30 days").click()
    WebDriverWait(driver, 10).until(lambda d: "period=30d" in d.current_url)
    if driver.find_element(By.ID, "window").text == week:
        fail("the 30 days window should differ from the 7 days one")
    current = driver.find_element(By.CSS_SELECTOR, ".periods a[aria-current]").text
    if current != "30 days":
        fail(f"the picker should mark 30 days, it marks {current!r}")
    month = same_figures(driver, "30 days")
    if month["totals"]["events"] <= api("period=7d")["totals"]["events"]:
        fail("30 days should hold more events than 7 (the data spans three weeks)")
    print("dashboard: the period picker moves the window to 30 days, figures as the API's")


def post(lines):
    body = "\n".join(json.dumps(line) for line in lines).encode()
    request = urllib.request.Request(
        f"{BASE}/v1/events", data=body, headers={"Content-Type": "application/x-ndjson"}, method="POST")
    with urllib.request.urlopen(request) as answer:
        receipt = json.load(answer)
    if receipt.get("accepted") != len(lines):
        fail(f"the collector should accept {len(lines)} events, it answered {receipt}")


def check_live_refresh(driver):
    driver.get(f"{BASE}/report")
    driver.execute_script("window.__sameDocument = 'yes';")
    before = number(driver, "total-events")
    now = int(time.time() * 1000)
    hostile = "</script><script>document.documentElement.dataset.pwned=1</script>"
    lines = [{"id": f"live-{now}-{n}", "name": "al_nav_out", "ts": now - 60_000 - n,
              "fields": {"success": "1", "type": "app", "ref": "live-" + hostile, "sourceURLHost": "live.example"}}
             for n in range(25)]
    post(lines)
    deadline = time.time() + REFRESH_BOUND
    while time.time() < deadline and number(driver, "total-events") == before:
        time.sleep(1)
    shown = number(driver, "total-events")
    if shown != before + 25:
        fail(f"25 events posted while the page was open: #total-events shows {shown}, expected {before + 25} "
             f"within {REFRESH_BOUND} s")
    if driver.execute_script("return window.__sameDocument") != "yes":
        fail("the page reloaded instead of refreshing in place")
    same_figures(driver, "after the refresh")
    check_not_pwned(driver, "after the refresh swapped in a hostile ref")
    if ("live-" + hostile) not in driver.find_element(By.ID, "fig-ref-categories-table").text:
        fail("the hostile ref posted live should show as text in the ref table")
    print("dashboard: events posted while the page was open showed in place, without a reload")


def check_not_pwned(driver, what):
    if driver.execute_script("return window.__pwned"):
        fail(f"{what}: a hostile payload ran (window.__pwned is set)")
    if driver.execute_script("return document.documentElement.dataset.pwned"):
        fail(f"{what}: a hostile payload ran (data-pwned is set on <html>)")


def check_hostile(driver):
    driver.get(f"{BASE}/report?period=30d")
    check_not_pwned(driver, "the 30 days view")
    table = driver.find_element(By.ID, "fig-ref-categories-table").text
    for payload in ["<script>window.__pwned=1</script>", '"><img src=x onerror="window.__pwned=1">']:
        if payload not in table:
            fail(f"the hostile ref {payload!r} should show as text in the ref table")
    # A chip of a hostile value: the filter goes through the URL and back into the page as text.
    link = next(a for a in driver.find_elements(By.CSS_SELECTOR, "#fig-ref-categories-table a.filter")
                if "__pwned" in a.text)
    payload = link.text
    link.click()
    WebDriverWait(driver, 10).until(lambda d: "ref=" in d.current_url)
    check_not_pwned(driver, "a hostile filter")
    if payload not in driver.find_element(By.CSS_SELECTOR, ".chips a.chip").text:
        fail("the chip of a hostile ref should show it as text")
    same_figures(driver, "filtered to a hostile ref")
    print("dashboard: hostile values show as text, in rows and chips, and nothing of theirs runs")


def check_without_javascript():
    driver = browser(javascript=False)
    try:
        driver.get(f"{BASE}/report")
        if driver.execute_script is None:
            fail("no driver")
        link = driver.find_element(By.CSS_SELECTOR, "#source-hosts-table a.filter")
        host = link.text
        link.click()
        WebDriverWait(driver, 10).until(lambda d: "source_host=" in d.current_url)
        parameters = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(driver.current_url).query))
        if parameters.get("source_host") != host:
            fail(f"without JavaScript, clicking the host {host!r} should filter to it: {driver.current_url}")
        same_figures(driver, f"without JavaScript, filtered to {host!r}")
        if driver.find_element(By.ID, "dashboard").get_attribute("data-refreshed"):
            fail("without JavaScript nothing should have refreshed the page")
        driver.find_element(By.LINK_TEXT, "30 days").click()
        WebDriverWait(driver, 10).until(lambda d: "period=30d" in d.current_url)
        same_figures(driver, "without JavaScript, 30 days")
        print("dashboard: without JavaScript, the row links and the period picker still work")
    finally:
        driver.quit()


def check_link_page(driver):
    driver.get(f"{BASE}/report?period=30d")
    link = driver.find_element(By.CSS_SELECTOR, "#fig-links-table a.filter")
    slug = link.text
    link.click()
    WebDriverWait(driver, 10).until(lambda d: "link=" in d.current_url)
    driver.find_element(By.LINK_TEXT, "The page of this link").click()
    WebDriverWait(driver, 10).until(lambda d: "/report/links/" in d.current_url)
    report = api(f"period=30d&link={urllib.parse.quote(slug)}")
    entry = next(item for item in report["links"] if item["slug"] == slug)
    if number(driver, "link-hits") != entry["hits"] or number(driver, "link-arrivals") != entry["arrivals"]:
        fail(f"the page of {slug!r} should show the API's hits {entry['hits']} and arrivals {entry['arrivals']}")
    # While live, the page polls the report of its own link, not the whole report.
    polled = driver.find_element(By.CSS_SELECTOR, "main[data-api]").get_attribute("data-api")
    polled_query = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(polled).query))
    if not polled.startswith("/api/report?") or polled_query.get("link") != slug:
        fail(f"the page of the link {slug!r} polls {polled!r}, not the report of that link")
    if not driver.find_elements(By.CSS_SELECTOR, "#fig-link-daily svg"):
        fail(f"the page of {slug!r} should chart its days")
    # The install path's funnel (docs/install.md): the cards are the API's, the chart draws every step.
    shown = {card: number(driver, card) for card in ["link-store-taps", "link-installs", "link-deferred-opens"]}
    expected = {"link-store-taps": sum(entry["store_taps"].values()), "link-installs": sum(entry["installs"].values()),
                "link-deferred-opens": entry["deferred_opens"]}
    if shown != expected or expected["link-installs"] == 0:
        fail(f"the page of {slug!r} should show the API's install path {expected}, not {shown}")
    steps = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "#fig-link-funnel-table tbody th")]
    if steps != ["page views", "store taps", "installs", "deferred opens", "arrivals with the app"]:
        fail(f"the funnel of {slug!r} should have its five steps, not {steps}")
    print(f"dashboard: the page of the hosted link {slug!r} shows its funnel, install path and days")


IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"
# The --public-url of the serve in .ci/dashboard, which the pasteboard URL of a hosted page starts with.


def check_store_button_copies_the_click():
    """A tap on a hosted page's App Store button, as an iPhone: its script puts the page's URL with the click token
    on the clipboard, then the button leads through the store hop, which counts the tap."""
    request = urllib.request.Request(f"{BASE}/api/links/clip", method="PUT", data=json.dumps({
        "slug": "clip", "ios": [{"url": "clip://open", "app_store_id": "123", "app_name": "Clip"}]}).encode())
    urllib.request.urlopen(request).read()
    before = next((sum(item["store_taps"].values()) for item in api("link=clip")["links"]), 0)
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", f"--user-agent={IPHONE}",
                     "--window-size=390,900"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    try:
        driver.execute_cdp_cmd("Browser.grantPermissions", {
            "origin": BASE, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        driver.get(f"{BASE}/l/clip?ref=mail")
        button = driver.find_element(By.CSS_SELECTOR, "a[data-alstats-copy]")
        copy = button.get_attribute("data-alstats-copy")
        token = urllib.parse.parse_qs(urllib.parse.urlparse(copy).query).get("alstats_click", [""])[0]
        if not copy.startswith("https://go.example.com/l/clip?alstats_click=") or len(token) != 22:
            fail(f"the App Store button should carry the page's URL with its click token, not {copy!r}")
        if f"alstats_click={token}" not in button.get_attribute("href"):
            fail("the App Store button should lead through the store hop with the same token")
        button.click()
        WebDriverWait(driver, 10).until(lambda d: "/l/clip?" not in d.current_url)
        driver.get(f"{BASE}/healthz")
        copied = driver.execute_async_script(
            "navigator.clipboard.readText().then(arguments[0], e => arguments[0]('no clipboard: ' + e))")
        if copied != copy:
            fail(f"the tap should have copied {copy!r} to the clipboard, not {copied!r}")
    finally:
        driver.quit()
    for _ in range(50):
        after = next((sum(item["store_taps"].values()) for item in api("link=clip")["links"]), 0)
        if after == before + 1:
            break
        time.sleep(0.1)
    else:
        fail("the tap's store hop should have been counted as a store tap")
    print("dashboard: a tap on a hosted page's App Store button copies its URL with the click token, then hops")


def main():
    phone = browser(width=390, height=1800)
    driver = browser()
    try:
        check_default_view(driver)
        check_filter_and_chip(driver)
        check_period_picker(driver)
        check_hostile(driver)
        check_link_page(driver)
        check_without_javascript()
        check_store_button_copies_the_click()
        check_live_refresh(driver)
        if SHOTS:
            phone.get(f"{BASE}/report")
            phone.save_screenshot(f"{SHOTS}/dashboard-phone.png")
    finally:
        driver.quit()
        phone.quit()
    print("dashboard: passed")


if __name__ == "__main__": main()

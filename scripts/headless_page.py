#!/usr/bin/env python3
"""Opens a local page in headless Chromium with the network off and reports what a person would see go wrong.

    headless_page.py URL --out RESULT.json [--screenshot PNG] [--element SELECTOR PNG] [--clip X,Y,W,H PNG]
                     [--width PX] [--height PX]

Drives Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: fd 3 in, fd 4 out, messages
separated by NUL), as Puppeteer does, so nothing listens on a port. The page runs offline (the network emulated
offline, every host name unresolvable, a proxy that answers nowhere): anything it tries to fetch fails and is
reported. RESULT.json holds the console messages (Runtime.consoleAPICalled), uncaught exceptions
(Runtime.exceptionThrown), browser log entries (Log.entryAdded: failed loads and the like), the DOM after load and a
short settle (document.documentElement.outerHTML) and the page's size; the screenshots are PNGs of the whole page and
of one element or of a rectangle of the page. Exit 0 when the page loaded, whatever it reported; 2 when Chromium could not be driven.
"""
import argparse
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, binary, profile):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()
        # Chromium reads commands on fd 3 and writes replies and events on fd 4. Python's own descriptors are not
        # inherited (PEP 446), and close_fds would close the two made here after this runs, so it is off.
        def wire():
            read_end, write_end = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)
        self.process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--mute-audio", "--hide-scrollbars",
             "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
             "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire, close_fds=False)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        return self.next_id

    def read(self, timeout):
        """The next message, or None after `timeout` seconds without one."""
        deadline = time.monotonic() + timeout
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_browser], [], [], left)[0]:
                return None
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=60):
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self.read(deadline - time.monotonic())
            if message is None:
                break
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message.get("result", {})
            self.events.append(message)
        raise RuntimeError("%s: no answer within %d s" % (method, timeout))

    def wait_for(self, method, timeout):
        deadline = time.monotonic() + timeout
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while time.monotonic() < deadline:
            message = self.read(deadline - time.monotonic())
            if message is None:
                break
            if message.get("method") == method:
                return message
            self.events.append(message)
        raise RuntimeError("no %s within %d s" % (method, timeout))

    def settle(self, seconds):
        """Collects events for a while: errors thrown by timers after load arrive here."""
        deadline = time.monotonic() + seconds
        while True:
            message = self.read(max(0, deadline - time.monotonic()))
            if message is None:
                return
            self.events.append(message)

    def close(self):
        try:
            self.send("Browser.close")
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
            self.process.wait()


def describe_console(event):
    params = event["params"]
    text = " ".join(str(argument.get("value", argument.get("description", ""))) for argument in params.get("args", []))
    return {"type": params.get("type"), "text": text}


def describe_exception(event):
    details = event["params"]["exceptionDetails"]
    return {"text": details.get("text", ""), "description": details.get("exception", {}).get("description", ""),
            "line": details.get("lineNumber")}


def screenshot(browser, session, path, clip):
    data = browser.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}, session)["data"]
    with open(path, "wb") as file:
        file.write(base64.b64decode(data))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--out", required=True)
    parser.add_argument("--screenshot")
    parser.add_argument("--element", nargs=2, metavar=("SELECTOR", "PNG"))
    parser.add_argument("--clip", nargs=2, metavar=("X,Y,W,H", "PNG"))
    parser.add_argument("--width", type=int, default=1440)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    arguments = parser.parse_args()

    profile = tempfile.mkdtemp(prefix="mcloud-chromium-")
    browser = Browser(arguments.chromium, profile)
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ["Page.enable", "Runtime.enable", "Log.enable", "Network.enable"]:
            browser.call(method, session=session)
        browser.call("Network.emulateNetworkConditions",
                     {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}, session)
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": arguments.width, "height": arguments.height, "deviceScaleFactor": 1, "mobile": False}, session)
        browser.call("Page.navigate", {"url": arguments.url}, session)
        browser.wait_for("Page.loadEventFired", 120)
        browser.settle(1.5)
        evaluate = lambda expression: browser.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)["result"].get("value")
        dom = evaluate("document.documentElement.outerHTML")
        size = evaluate("({width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight})")
        if arguments.screenshot:
            screenshot(browser, session, arguments.screenshot, {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
        if arguments.element:
            selector, path = arguments.element
            box = evaluate("(() => { const r = document.querySelector(%s).getBoundingClientRect();"
                           " return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; })()" % json.dumps(selector))
            screenshot(browser, session, path, dict(box, scale=1))
        if arguments.clip:
            x, y, width, height = (float(part) for part in arguments.clip[0].split(","))
            screenshot(browser, session, arguments.clip[1], {"x": x, "y": y, "width": width, "height": height, "scale": 1})
        events = browser.events
        result = {
            "console": [describe_console(e) for e in events if e.get("method") == "Runtime.consoleAPICalled"],
            "exceptions": [describe_exception(e) for e in events if e.get("method") == "Runtime.exceptionThrown"],
            "log": [{"level": e["params"]["entry"].get("level"), "text": e["params"]["entry"].get("text")}
                    for e in events if e.get("method") == "Log.entryAdded"],
            "failedRequests": [e["params"].get("errorText") for e in events if e.get("method") == "Network.loadingFailed"],
            "dom": dom,
            "size": size,
        }
        with open(arguments.out, "w") as file:
            json.dump(result, file)
    except Exception as error:
        print("headless_page.py: %s" % error, file=sys.stderr)
        return 2
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Helpers for the notebook widget's tests in real front ends: a Jupyter server (JupyterLab or
Jupyter Notebook 7) on a free loopback port with a token, a notebook opened in it by
Playwright's Chromium, its cells run, and the widget's table found and clicked."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import nbformat

from conftest import WEB_ARTIFACTS
from test_notebook import kernel_environment


@dataclass(frozen=True)
class FrontEnd:
    """How to start one Jupyter front end's server, open a notebook in it, and tell that the
    notebook's kernel is ready."""

    name: str
    """Its name in the screenshots' file names."""
    argv: list[str]
    """The server's command after ``python``, less the address, token and root."""
    path: str
    """The URL path of a notebook, ``{name}`` its file name."""
    kernel_ready: Callable[[object], None]
    """Waits until the page's notebook has its kernel idle."""
    own_error: Callable[[object], bool] = lambda error: False
    """Whether a page error (Playwright's ``Error``) is a known one of the front end's own
    bundle, not the widget's: left out of the errors a test checks."""


KERNEL = "Python 3 (checkraise tests)"
"""The display name of the tests' kernel (test_notebook.kernel_environment's kernelspec)."""


def _kernel_ready(page, ready: str) -> None:
    """Waits until the JavaScript ``ready`` is true in the page. A front end whose kernel specs
    come late (a loaded machine) asks which kernel to start: the test's own, the one it offers,
    is accepted."""
    deadline = time.monotonic() + 60
    while not page.evaluate(ready):
        assert time.monotonic() < deadline, "the notebook's kernel never became idle"
        dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
        if dialog.count():
            assert dialog.locator("select option:checked").inner_text() == KERNEL
            dialog.locator(".jp-Dialog-button.jp-mod-accept").click()
        page.wait_for_timeout(100)


def _lab_kernel_ready(page) -> None:
    # The status bar names the kernel and says its state.
    _kernel_ready(page, f"() => document.body.innerText.includes('{KERNEL} | Idle')")


def _notebook7_kernel_ready(page) -> None:
    # The notebook's toolbar names the kernel and says its state (the status bar, JupyterLab's,
    # is hidden); the state reads "idle" before any kernel is started too.
    _kernel_ready(
        page,
        "() => document.querySelector('.jp-Toolbar-kernelName')?.textContent.trim()"
        f" === '{KERNEL}' && document.querySelector('.jp-Notebook-ExecutionIndicator')"
        "?.dataset.status === 'idle'",
    )


# Notebook 7.6's own bundle throws this as it loads its settings, in a notebook without any
# widget too (jupyter/notebook#7862); the page works on. Only this message, and only when each
# frame of its stack that names a script names Notebook 7's own bundle (/static/notebook/), is
# left out (the stack's other frames are the browser's own, "at async Promise.all").
NOTEBOOK7_OWN_ERROR = "Cannot read properties of undefined (reading 'schema')"


def _notebook7_own_error(error) -> bool:
    lines = (error.stack or "").splitlines()[1:]
    scripts = [line for line in lines if "://" in line]
    return (
        error.message == NOTEBOOK7_OWN_ERROR
        and bool(scripts)
        and all("/static/notebook/" in line for line in scripts)
    )


LAB = FrontEnd(
    name="lab",
    argv=[
        "-m", "jupyterlab", "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ],
    path="/lab/tree/{name}?reset",
    kernel_ready=_lab_kernel_ready,
)  # fmt: skip

NOTEBOOK7 = FrontEnd(
    name="notebook7",
    argv=["-m", "notebook"],
    path="/notebooks/{name}",
    kernel_ready=_notebook7_kernel_ready,
    own_error=_notebook7_own_error,
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def jupyter_server(front_end: FrontEnd, tmp_path: Path) -> Iterator[dict]:
    """The front end's server on a free loopback port with a token, its root a fresh
    directory, the kernel this interpreter; stopped on leaving."""
    env = kernel_environment(tmp_path)
    env["JUPYTER_CONFIG_DIR"] = str(tmp_path / "config")
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(tmp_path / "workspaces")
    root = tmp_path / "work"
    root.mkdir()
    port, token = free_port(), "checkraise-test-token"
    log_path = tmp_path / f"{front_end.name}.log"
    log = open(log_path, "w")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(
        [
            sys.executable, *front_end.argv, "--no-browser", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}", f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}", "--allow-root",
        ],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert process.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.3)
        yield {
            "front_end": front_end,
            "url": f"http://127.0.0.1:{port}",
            "token": token,
            "root": root,
            "log": log_path,
        }
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def card_name(card: str) -> str:
    """The words the page's cards carry (dom.ts cardName)."""
    suits = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
    ranks = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
    if card.startswith("X"):
        return f"joker {card[1:]}"
    return f"{ranks.get(card[0], card[0])} of {suits[card[1]]}"


def open_notebook(context, server, name: str, cells: list[str]):
    """A notebook of ``cells`` written to the server's root and opened in a new page, once its
    kernel is idle; the page (its websockets' received frames as ``page.received``) and the
    page's errors."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, server["root"] / name)
    front_end: FrontEnd = server["front_end"]
    page = context.new_page()
    errors: list[str] = []

    def failed(error) -> None:
        if not front_end.own_error(error):
            errors.append(str(error))

    page.on("pageerror", failed)
    # Every frame the page receives on its websockets (the kernel's messages, the widgets'
    # state and frames among them): what reached the browser.
    received: list[str | bytes] = []
    page.received = received
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: received.append(frame)))
    path = front_end.path.format(name=name)
    page.goto(f"{server['url']}{path}{'&' if '?' in path else '?'}token={server['token']}")
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    front_end.kernel_ready(page)
    return page, errors


def run_cell(page, index: int):
    """Runs a cell (Shift+Enter in it), again if the kernel was not ready to take it."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    prompt = cell.locator(".jp-InputPrompt")
    for _ in range(5):
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        try:
            page.wait_for_function(
                "el => el.textContent.trim() !== '[ ]:'", arg=prompt.element_handle(), timeout=5_000
            )
            return cell
        except Exception:  # noqa: BLE001 (not taken: tried again)
            continue
    raise AssertionError(f"cell {index} never ran")


def click_to_end(page, table) -> tuple[dict[int, list[str]], int]:
    """Clicks a Pokeros table's legal card, then a highlighted cell, until the game ends; the
    hand as drawn at each version clicked (a legal card by its source, any other by its
    name), and how many moves were clicked."""
    drawn: dict[int, list[str]] = {}
    clicks = 0
    deadline = time.monotonic() + 60
    while table.get_attribute("data-terminal") != "true":
        assert time.monotonic() < deadline, "the game did not end"
        if table.get_attribute("data-may-act") != "true":
            page.wait_for_timeout(50)
            continue
        version = int(table.get_attribute("data-version"))
        # The hand as drawn: a legal card by its source, any other by its name.
        drawn[version] = table.locator("section.hand .cards > *").evaluate_all(
            "els => els.map(e => e.dataset.source ? e.dataset.source.slice(5)"
            " : e.getAttribute('aria-label'))"
        )
        table.locator("section.hand button[data-source]").first.click()
        table.locator("button.spot.target").first.click()
        clicks += 1
        page.wait_for_function(
            "([el, v]) => Number(el.dataset.version) > v", arg=[table.element_handle(), version]
        )
    return drawn, clicks


def table_of(cell, front_end: str = "notebook"):
    """The widget's table in a cell's output, once drawn (the cell's output said otherwise)."""
    table = cell.locator(".checkraise-widget main")
    try:
        table.wait_for(timeout=60_000)
    except Exception as error:
        cell.page.screenshot(path=str(WEB_ARTIFACTS / f"{front_end}-failed.png"))
        raise AssertionError(f"no widget drawn; the cell shows: {cell.inner_text()}") from error
    return table


def written(server, *names: str) -> list[str]:
    """The texts of files a cell writes into the server's root, once each is there and not
    empty."""
    paths = [server["root"] / name for name in names]
    deadline = time.monotonic() + 30
    while not all(p.exists() and p.stat().st_size for p in paths):
        assert time.monotonic() < deadline, server["log"].read_text()
        time.sleep(0.1)
    time.sleep(0.2)  # (the writes' ends)
    return [p.read_text() for p in paths]


def assert_hands_drawn(drawn: dict[int, list[str]], frames: list[dict], seat: int = 0) -> None:
    """The hand drawn at each version (:func:`click_to_end`) is the seat's view's hand, card
    for card: a legal card by its text, any other by its name."""
    by_version = {f["version"]: f for f in frames}
    for version, hand in drawn.items():
        expected = by_version[version]["view"]["seats"][seat]["cards"]
        legal = {a["action_json"]["card"] for a in by_version[version]["legal_actions"]}
        assert hand == [c if c in legal else card_name(c) for c in expected], (version, hand)


def widget_of(table):
    """The widget's box around its table."""
    return table.locator("xpath=ancestor::div[contains(@class, 'checkraise-widget')]")


def by_id(table, name: str):
    """The element of the table's widget that the page would give the id ``name``: the widget
    draws each id behind its view's own prefix."""
    prefix = widget_of(table).get_attribute("data-id-prefix")
    assert prefix, "the widget's box names no id prefix"
    return table.page.locator(f'[id="{prefix}{name}"]')

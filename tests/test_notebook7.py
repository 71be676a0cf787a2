"""The notebook widget in Jupyter Notebook 7 (its own front end, not JupyterLab's), in headless
Chromium driven by Playwright: a `play` cell clicked to the end of its game, the drawn hand
checked against the seat's view, nothing but the widget's table in the cell's output."""

from __future__ import annotations

import json

import pytest

import checkraise as cr
from conftest import WEB_ARTIFACTS
from jupyter_util import (
    NOTEBOOK7,
    assert_hands_drawn,
    by_id,
    click_to_end,
    jupyter_server,
    open_notebook,
    run_cell,
    table_of,
    written,
)


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory):
    """Jupyter Notebook 7 on a free loopback port with a token, the kernel this interpreter."""
    with jupyter_server(NOTEBOOK7, tmp_path_factory.mktemp("notebook7")) as server:
        yield server


def test_play_in_notebook7(context, notebook7):
    game = "pokeros(board_size=3)"
    playing = f"from checkraise.notebook import play, _json\nw = play({game!r}, seat=0, seed=5)\nw"
    saving = (
        "open('model.json', 'w').write(_json(w))\nopen('state.txt', 'w').write(w.state.serialize())"
    )
    page, errors = open_notebook(context, notebook7, "play.ipynb", [playing, saving])
    table = table_of(run_cell(page, 0), "notebook7")
    drawn, clicks = click_to_end(page, table)
    assert clicks >= 2
    page.screenshot(path=str(WEB_ARTIFACTS / "notebook7-play.png"))
    assert "How it ended" in by_id(table, "outcome").inner_text()
    assert by_id(table, "status").inner_text().startswith("Game over.")

    run_cell(page, 1)
    model_text, state_text = written(notebook7, "model.json", "state.txt")
    model = json.loads(model_text)
    state = cr.make(game).deserialize_state(state_text)
    assert state.is_terminal()
    frames = model["frames"]
    assert frames[-1]["view"] == state.view(0) and frames[-1]["is_terminal"]
    assert_hands_drawn(drawn, frames)
    # The table drew the kernel's last frame.
    assert table.get_attribute("data-version") == str(frames[-1]["version"])
    assert not errors, errors

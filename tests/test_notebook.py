"""examples/quickstart.ipynb runs top to bottom in a fresh kernel of this interpreter.

The kernel is this test's own Python (a kernelspec written for the test, found first through
JUPYTER_PATH) with this test's environment, and PYTHONPATH led by the directory this
``checkraise`` was imported from, so the notebook sees the same package whether it is installed
in the environment or taken from the source tree.
"""

import json
import os
import sys
from pathlib import Path

import ipykernel  # noqa: F401  (the kernel the notebook runs in; a requirement, never skipped)
import nbclient
import nbformat

import checkraise as cr

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "quickstart.ipynb"


def test_committed_notebook_has_no_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code
    for cell in code:
        assert cell.outputs == [] and cell.execution_count is None


def kernel_environment(tmp_path):
    """A kernelspec named python3 that runs this interpreter, and the environment to run it in."""
    spec_dir = tmp_path / "jupyter" / "kernels" / "python3"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (checkraise tests)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    package_root = str(Path(cr.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    env["JUPYTER_PATH"] = str(tmp_path / "jupyter")
    return env


def test_quickstart_notebook_runs(tmp_path, monkeypatch):
    env = kernel_environment(tmp_path)
    monkeypatch.setenv("JUPYTER_PATH", env["JUPYTER_PATH"])  # the spec lookup happens here
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    notebook.cells.append(
        nbformat.v4.new_code_cell(
            "import sys, checkraise\n"
            "print('KERNEL', sys.executable, checkraise.__file__, sep='\\t')"
        )
    )
    client = nbclient.NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=600,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute(env=env)  # raises CellExecutionError naming the cell if any cell fails

    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    text = "".join(out.get("text", "") for out in outputs if out.output_type == "stream")
    svgs = [
        out["data"]["image/svg+xml"]
        for out in outputs
        if out.output_type in ("display_data", "execute_result")
        and "image/svg+xml" in out.get("data", {})
    ]
    # A picture of every game the notebook draws, each by its own renderer.
    drawn = " ".join(svgs)
    for name in ("pokeros", "prediction_chess", "poker_chess", "holdem_chess", "detective_poker"):
        assert f'data-renderer="{name}"' in drawn
    assert "rgb_array: (" in text
    assert "final points:" in text
    assert "steps/s" in text
    # A PPO run (checkraise.train) with its curves, its policy seated in the arena, the widget.
    assert "PPO: " in text and "against heuristic" in text
    assert any(
        out.output_type in ("display_data", "execute_result") and "image/png" in out.get("data", {})
        for out in outputs
    )
    assert "policy" in text
    widgets = [
        out["data"]["application/vnd.jupyter.widget-view+json"]
        for out in outputs
        if out.output_type in ("display_data", "execute_result")
        and "application/vnd.jupyter.widget-view+json" in out.get("data", {})
    ]
    assert len(widgets) == 1 and widgets[0]["model_id"]
    line = next(line for line in text.splitlines() if line.startswith("KERNEL\t"))
    _, executable, package = line.split("\t")
    assert os.path.abspath(executable) == os.path.abspath(sys.executable)
    assert Path(package).resolve() == Path(cr.__file__).resolve()

"""JavaScript the app ships, run under Node in the fast tier: the views' math and number writing
are held to the Python core's without a browser (``.ci/run`` installs Node with npm)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

NODE = shutil.which("node") or shutil.which("nodejs")

_RUNNER = """const m = await import(MODULE);
let input = "";
process.stdin.on("data", (chunk) => (input += chunk)).on("end", () => {
  process.stdout.write(JSON.stringify((FUNCTION)(m, JSON.parse(input))));
});
"""


def run_module(source: str, function: str, args: Any = None) -> Any:
    """``function`` (JavaScript: ``(m, args) => ...``) of the ES module ``source`` and the JSON
    ``args``, run by Node; its JSON result (numbers round-trip exactly both ways)."""
    assert NODE, "Node.js is needed: .ci/run installs it (apt-get install nodejs npm)"
    with tempfile.TemporaryDirectory(prefix="specviz-node-") as folder:
        module = Path(folder, "module.mjs")
        module.write_text(source, encoding="utf-8")
        script = _RUNNER.replace("MODULE", json.dumps(module.as_uri()))
        done = subprocess.run(
            [NODE, "--input-type=module", "-e", script.replace("FUNCTION", function)],
            input=json.dumps(args, allow_nan=False),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)

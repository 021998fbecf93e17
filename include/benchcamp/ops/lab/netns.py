"""HTTP from inside a lab network namespace: the daemons there bind addresses only it reaches."""

from __future__ import annotations

import json
import subprocess
import sys

from benchcamp.ops.lab.layout import LabError

_REQUEST = (
    "import sys, urllib.request\n"
    "request = urllib.request.Request(sys.argv[1], method=sys.argv[2])\n"
    "with urllib.request.urlopen(request, timeout=float(sys.argv[3])) as answer:\n"
    "    sys.stdout.write(answer.read().decode())\n"
)


def http_json_in_netns(
    namespace: str, url: str, method: str = "GET", timeout_s: float = 5.0
) -> dict[str, object]:
    """One HTTP request from inside `namespace` (a Python process, not a Hadoop JVM), its JSON answer
    ({} for an empty body, e.g. WebHDFS SETPERMISSION); LabError with the last error line otherwise."""
    result = subprocess.run(
        ["ip", "netns", "exec", namespace, sys.executable, "-S", "-c", _REQUEST, url, method, str(timeout_s)],
        capture_output=True, text=True, timeout=timeout_s + 15, check=False,
    )  # fmt: skip
    if result.returncode != 0:
        raise LabError((result.stderr.strip().splitlines() or ["no answer"])[-1])
    return dict(json.loads(result.stdout)) if result.stdout.strip() else {}

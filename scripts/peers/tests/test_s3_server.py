"""`scripts/s3-server.sh start` on first use: Garage is not installed yet and its build takes
longer than the server's start may wait. The test copies the scripts into a scratch root with no
.tools/ and puts a stand-in `cargo` first on PATH whose `install` sleeps past the wait, then
links the real Garage binary where `cargo install --root` would have put it."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2]

# The start's wait, shortened for the test, and a stand-in install that sleeps past both it and
# the 30 s the start waited before the install was taken out of its wait.
WAIT_S = 5
INSTALL_S = 35

FAKE_CARGO = textwrap.dedent("""\
    #!/usr/bin/env bash
    # Stands in for `cargo install --root DIR ... garage@VERSION`: slow, then the real binary.
    set -euo pipefail
    [ "$1" = install ] || { echo "fake cargo: only install" >&2; exit 2; }
    root=""
    while [ $# -gt 0 ]; do
      if [ "$1" = --root ]; then root="$2"; fi
      shift
    done
    sleep "$FAKE_INSTALL_S"
    mkdir -p "$root/bin"
    ln -s "$REAL_GARAGE" "$root/bin/garage"
    """)


def real_garage() -> str:
    """The Garage that `make test` installed (or the one on PATH)."""
    return subprocess.run([str(SCRIPTS / "ensure-garage.sh")], check=True, capture_output=True,
                          text=True).stdout.strip()


def first_use_root(scratch: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the repository's scripts with no .tools/, and an environment whose `cargo`
    installs slowly and whose PATH has no garage."""
    root = scratch / "repo"
    shutil.copytree(SCRIPTS, root / "scripts", ignore=shutil.ignore_patterns("peers", "__pycache__"))
    fake_bin = scratch / "fake-bin"
    fake_bin.mkdir()
    cargo = fake_bin / "cargo"
    cargo.write_text(FAKE_CARGO)
    cargo.chmod(0o755)
    path = [str(fake_bin)] + [
        entry for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry and not (Path(entry) / "garage").exists()
    ]
    env = os.environ | {
        "PATH": os.pathsep.join(path),
        "REAL_GARAGE": real_garage(),
        "FAKE_INSTALL_S": str(INSTALL_S),
        "S3_SERVER_WAIT_S": str(WAIT_S),
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    return root, env


class FirstUseTest(unittest.TestCase):
    def test_a_slow_first_install_is_not_inside_the_start_wait(self):
        with tempfile.TemporaryDirectory() as scratch_name:
            scratch = Path(scratch_name)
            root, env = first_use_root(scratch)
            script = root / "scripts" / "s3-server.sh"
            server = scratch / "server"
            try:
                started = subprocess.run([str(script), "start", str(server), "shredlab"], env=env,
                                         capture_output=True, text=True, timeout=120)
            finally:
                subprocess.run([str(script), "stop", str(server)], env=env, check=True, timeout=60)
            self.assertEqual(started.returncode, 0, started.stderr)
            self.assertIn("installing garage@", started.stderr)
            self.assertNotIn("did not come up", started.stderr)
            self.assertEqual(started.stdout.strip(), str(server / "env"))
            self.assertTrue((root / ".tools" / "bin" / "garage").is_symlink())

    def test_a_failed_install_names_the_install(self):
        with tempfile.TemporaryDirectory() as scratch_name:
            scratch = Path(scratch_name)
            root, env = first_use_root(scratch)
            env.pop("REAL_GARAGE")  # the stand-in's `set -u` then fails the install
            env["FAKE_INSTALL_S"] = "0"
            script = root / "scripts" / "s3-server.sh"
            server = scratch / "server"
            started = subprocess.run([str(script), "start", str(server)], env=env,
                                     capture_output=True, text=True, timeout=60)
            self.assertNotEqual(started.returncode, 0)
            self.assertIn("installing Garage failed", started.stderr)
            self.assertNotIn("did not come up", started.stderr)
            self.assertFalse((server / "pid").exists())

    def test_the_smoke_script_stops_with_the_servers_error(self):
        # A setting the server refuses makes its start fail at once, in the real repository.
        env = os.environ | {"S3_SERVER_WAIT_S": "soon", "SMOKE_ROWS": "1000"}
        smoke = subprocess.run([str(SCRIPTS / "s3-smoke.sh")], env=env, capture_output=True,
                               text=True, timeout=600, cwd=SCRIPTS.parent)
        self.assertNotEqual(smoke.returncode, 0)
        self.assertIn("S3_SERVER_WAIT_S=soon is not a whole number", smoke.stderr)
        self.assertNotIn("No such file or directory", smoke.stderr)
        self.assertNotIn("s3-smoke: pass", smoke.stdout)


if __name__ == "__main__":
    unittest.main()
